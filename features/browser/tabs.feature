@browser
Feature: Tabs that close, and tabs that pages open
  The agent must tell a vanished tab from a slow one, and must know which tab opened which.

  @contract-browser-tab-gone
  Scenario: Closing a tab while it navigates makes it gone
    When a new tab is created on "{site}/never"
    And the user closes the tab
    And the tab's "tab-closed" event arrives
    Then the tab is gone
    And 0 tabs are open
    And the tab's events include, in order:
      | event      | url          |
      | started    | {site}/never |
      | failed     | {site}/never |
      | tab-closed |              |

  @contract-browser-tab-gone @contract-browser-opener
  Scenario: A page opened by script closes itself
    Given a tab is open on "{site}/page?title=Opener&open=/close-self?after=100"
    When the user clicks "#open"
    And a new tab appears
    Then the tab was opened by tab 1
    When the tab's "tab-closed" event arrives
    Then the tab is gone
    And 1 tab is open

  @contract-browser-chromium-quirks
  Scenario: A tab the browser made (not a script) ignores window.close()
    Given a tab is open on "{site}/close-self?after=0"
    Then the tab has no "tab-closed" event within 1000 ms
    And 1 tab is open

  @contract-browser-opener
  Scenario: A page that opens a popup on load
    Given a tab is open on "{site}/popup?to=/page?title=Popped"
    When a new tab appears
    And the tab's "load" event arrives
    Then the tab was opened by tab 1
    And the page's title is "Popped"
    And 2 tabs are open

  @contract-browser-active-tab @contract-browser-opener
  Scenario: A popup comes to the front and hides its opener; the user switching back brings the opener to the front
    The page answers once its visibility is as asked: by its own visibilitychange event, or by
    its state read every 100 ms (headless Firefox does not always fire the event on the opener
    when the user switches back to it, though its state does change).
    Given a tab is open on "{site}/popup?to=/page?title=Popped"
    When the page is asked for "new Promise(done => { const look = () => document.visibilityState === 'hidden' ? done('hidden') : setTimeout(look, 100); document.addEventListener('visibilitychange', look); look(); })"
    Then the page answers "hidden"
    And 2 tabs are open
    When the user switches to the tab
    And the page is asked for "new Promise(done => { const look = () => document.visibilityState === 'visible' ? done('visible') : setTimeout(look, 100); document.addEventListener('visibilitychange', look); look(); })"
    Then the page answers "visible"
    And the page's title is "Popup"

  @chromium-quirk @contract-browser-chromium-quirks
  Scenario: A tab that a page opened with window.open can be read but takes no real input
    Chromium 156's BiDi never answers input.performActions for such a tab (nor a context-targeted
    script.evaluate or locateNodes; the port reads pages through their realm, which works).
    Given a tab is open on "{site}/page?title=Opener&open=/page?title=Popped"
    When the user clicks "#open"
    And a new tab appears
    And the tab's "load" event arrives
    Then the page's title is "Popped"
    When the user clicks "#go" without waiting for the browser
    Then the browser gives no answer within 2000 ms
    And the tab has no "started" event within 100 ms

  @chromium-quirk @contract-browser-chromium-quirks @contract-browser-opener
  Scenario: A target=_blank link opens a tab whose navigation sends no navigationCommitted event
    Chromium 156 reports the new tab's navigation as started, DOM loaded and loaded, never as
    committed, and its input.performActions answers only once that slow page has arrived. A DOM
    loaded or load event has to count as proof of commit.
    Given a tab is open on "{site}/link?target=_blank&to=/slow?delay=1000"
    When the user clicks "#go"
    And a new tab appears
    And the tab's "load" event arrives
    Then the tab was opened by tab 1
    And the tab's URL is "{site}/slow?delay=1000"
    And the tab had no "committed" event
    And the tab's events include, in order:
      | event      | url                     |
      | started    | {site}/slow?delay=1000  |
      | dom-loaded | {site}/slow?delay=1000  |
      | load       | {site}/slow?delay=1000  |
