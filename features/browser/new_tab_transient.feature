@browser
Feature: A new tab reports about:blank until its navigation commits
  The design's race, reproduced on a real browser: `chrome.tabs.create` (here browsingContext.create
  plus a navigate) returns while the tab still reports about:blank; the start event already
  carries the URL it is heading to.

  @contract-browser-new-tab-transient
  Scenario: A new tab reports about:blank while its navigation is in flight, its pending URL known from the start event
    When a new tab is created on "{site}/gate?name=first&title=Arrived"
    Then the tab's URL is "about:blank"
    And the tab's pending URL is "{site}/gate?name=first&title=Arrived"
    And the tab is loading
    When the site releases "first"
    And the tab's "load" event arrives
    Then the tab's URL is "{site}/gate?name=first&title=Arrived"
    And the tab has no pending URL
    And the tab is not loading
    And the page's title is "Arrived"
    And the tab's events include, in order:
      | event       | url                                   |
      | tab-created | about:blank                           |
      | started     | {site}/gate?name=first&title=Arrived  |
      | committed   | {site}/gate?name=first&title=Arrived  |
      | dom-loaded  | {site}/gate?name=first&title=Arrived  |
      | load        | {site}/gate?name=first&title=Arrived  |

  @contract-browser-never-commits
  Scenario: A response that never comes leaves the new tab on about:blank
    When a new tab is created on "{site}/never"
    Then the tab has no "committed" event within 1500 ms
    And the tab's URL is "about:blank"
    And the tab's pending URL is "{site}/never"
    And the fixture site served "/never" 1 time

  @contract-browser-cross-origin-redirect
  Scenario: A server redirect to another origin starts on the first origin and commits on the other
    When a new tab is created on "{site}/redirect?to={other}/page?title=Elsewhere"
    And the tab's "load" event arrives
    Then the tab's URL is "{other}/page?title=Elsewhere"
    And the page's title is "Elsewhere"
    And the tab's events include, in order:
      | event     | url                                             |
      | started   | {site}/redirect?to={other}/page?title=Elsewhere |
      | committed | {other}/page?title=Elsewhere                    |
