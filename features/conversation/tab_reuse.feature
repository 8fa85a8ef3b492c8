@conversation
Feature: Tab reuse across conversation turns, the task store, and a sticky primary tab
  docs/design/tab-reuse.md: when a task already has a tab, a new turn that needs another URL navigates that tab
  instead of opening a new one, and the model is offered only the tab-operation tools. The closed loop's
  sticky primary tab: the agent keeps to its primary tab whatever the browser makes active.

  Background:
    Given a new task
    And the model plans:
      | round | tool | args                  |
      | 1     | done | {"summary": "looked"} |

  @contract-tab-reuse
  Scenario: Three turns on three URLs, two origins among them, reuse one tab
    When the user asks to open "{site}/slow?delay=800&title=One"
    And the user asks to open "{other}/page?title=Two"
    And the user asks to open "{site}/page?title=Three"
    Then turn 1 succeeded
    And turn 2 succeeded
    And turn 3 succeeded
    And the task's tab is the same as after turn 1
    And turn 1 observed the page titled "One"
    And turn 2 observed the page titled "Two"
    And turn 3 observed the page titled "Three"
    And 1 tab is open
    And the task record has "current url" = "{site}/page?title=Three"
    And the task record has "status" = "done"
    And the task record's tab is the task's tab

  @contract-tab-reuse
  Scenario: The user takes the task's tab elsewhere between turns: the next turn reuses it and brings it back
    When the user asks to open "{site}/page?title=One"
    Then turn 1 succeeded
    And the tab's URL is "{site}/page?title=One"
    When the user navigates the tab to "{other}/page?title=Elsewhere"
    And the tab's "load" event arrives
    Then the tab's URL is "{other}/page?title=Elsewhere"
    And the page's title is "Elsewhere"
    When the user asks to open "{site}/page?title=Two"
    Then turn 2 succeeded
    And the task's tab is the same as after turn 1
    And the model was offered the tools "focus_tab, navigate, go_back, click, type, press_key, handle_dialog, close_tabs, wait, wait_for, wait_for_network_idle, ask_user, done, scroll, extract, screenshot, select_option, hover, drag, upload_file, fill_form"
    And turn 2 observed the page titled "Two"
    And the tab's URL is "{site}/page?title=Two"
    And 1 tab is open

  @contract-tools-offered
  Scenario: The first turn is offered the creation tools, later turns only the tab tools
    When the user asks to open "{site}/page?title=One"
    Then the model was offered the tools "open_url, focus_tab, navigate, go_back, click, type, press_key, handle_dialog, close_tabs, wait, wait_for, wait_for_network_idle, ask_user, done, scroll, extract, screenshot, select_option, hover, drag, upload_file, fill_form"
    When the user asks to open "{site}/page?title=Two"
    Then the model was offered the tools "focus_tab, navigate, go_back, click, type, press_key, handle_dialog, close_tabs, wait, wait_for, wait_for_network_idle, ask_user, done, scroll, extract, screenshot, select_option, hover, drag, upload_file, fill_form"
    And the model was offered the tools "open_url, focus_tab, navigate, go_back, click, type, press_key, handle_dialog, close_tabs, wait, wait_for, wait_for_network_idle, ask_user, done, scroll, extract, screenshot, select_option, hover, drag, upload_file, fill_form" in turn 1

  @contract-stale-tab
  Scenario: The user closes the task's tab between turns: a new tab, the record updated, the trace says why
    When the user asks to open "{site}/page?title=One"
    And the user closes the task's tab
    And the user asks to open "{site}/page?title=Two"
    Then turn 2 succeeded
    And the task's tab is not the same as after turn 1
    And the trace says "was closed; opening a new tab"
    And the task record's tab is the task's tab
    And the model was offered the tools "open_url, focus_tab, navigate, go_back, click, type, press_key, handle_dialog, close_tabs, wait, wait_for, wait_for_network_idle, ask_user, done, scroll, extract, screenshot, select_option, hover, drag, upload_file, fill_form"
    And turn 2 observed the page titled "Two"

  @contract-store-partial-update @contract-tab-reuse
  Scenario: Partial updates keep the other fields; the record survives a reopened store, and its open tab is reused
    When the user asks to open "{site}/page?title=One"
    And the task record is updated with:
      | field     | value |
      | group id  | 7     |
      | window id | 3     |
    And the task record is updated with:
      | field | value   |
      | title | Renamed |
    Then the task record has "group id" = "7"
    And the task record has "window id" = "3"
    And the task record has "title" = "Renamed"
    And the task record's tab is the task's tab
    When the store is reopened
    Then the task record has "group id" = "7"
    And the task record has "current url" = "{site}/page?title=One"
    When the user asks to open "{site}/page?title=Two"
    Then the task's tab is the same as after turn 1
    And the model was offered the tools "focus_tab, navigate, go_back, click, type, press_key, handle_dialog, close_tabs, wait, wait_for, wait_for_network_idle, ask_user, done, scroll, extract, screenshot, select_option, hover, drag, upload_file, fill_form"
    And turn 2 observed the page titled "Two"
    And the task record has "group id" = "7"

  @contract-store-partial-update
  Scenario: Only an explicit clear empties a field
    When the user asks to open "{site}/page?title=One"
    And the task record is updated with:
      | field    | value   |
      | group id | 7       |
      | group id | <clear> |
    Then the task record has no "group id"
    And the task record's tab is the task's tab

  @contract-empty-url
  Scenario: An empty URL reopens the task's current URL in its tab
    When the user asks to open "{site}/page?title=One"
    And the user asks to open ""
    Then turn 2 succeeded
    And the task's tab is the same as after turn 1
    And turn 2 observed the page titled "One"

  @contract-client-fallback
  Scenario: The task's browser client goes away: another registered one takes over
    Given a second browser client "B"
    When the user asks to open "{site}/page?title=One"
    And the browser client "A" goes away
    And the user asks to open "{site}/page?title=Two"
    Then turn 2 succeeded
    And the task uses the browser client "B"
    And the trace says "browser client A is gone; using B"
    And the task's tab is not the same as after turn 1
    And turn 2 observed the page titled "Two"

  @contract-client-fallback
  Scenario: The task's browser client is gone before its first turn: another registered one opens its tab
    Given a second browser client "B"
    And the browser client "A" goes away
    When the user asks to open "{site}/page?title=One"
    Then turn 1 succeeded
    And the task uses the browser client "B"
    And turn 1 observed the page titled "One"
    And 0 tabs are open

  @contract-client-fallback
  Scenario: No browser client left: the turn fails with a clear error
    When the browser client "A" goes away
    And the user asks to open "{site}/page?title=One"
    Then the turn failed with "no browser client available"
    And 0 tabs are open

  @contract-no-such-task
  Scenario: A task id that does not exist: "no such task", and nothing is created
    When the user asks to open "{site}/page?title=One" in task "nope"
    Then the turn failed with "no such task: nope"
    And 0 tabs are open

  @contract-sticky-primary
  Scenario: A popup that becomes the active tab moves nothing: the agent keeps to its tab
    Given the model plans:
      | round | tool  | args                  |
      | 1     | click | {"selector": "#open"} |
      | 2     | wait  | {"ms": 10}            |
      | 3     | done  | {"summary": "stayed"} |
    And before round 3 the user opens "{other}/page?title=Elsewhere" in a new tab
    When the user asks to open "{site}/page?title=Home&open=/page?title=Popup"
    Then turn 1 succeeded
    And round 2 observed the page titled "Home"
    And round 3 observed the page titled "Home"
    And the task's ledger has 1 child tab
    And the model was told of 1 new tab
    And the browser has 2 tabs open for the task
    And 3 tabs are open

  @contract-sticky-primary
  Scenario: Two popups the task's page opens both join its ledger; the agent stays on its tab
    Given the model plans:
      | round | tool  | args                  |
      | 1     | click | {"selector": "#open"} |
      | 2     | click | {"selector": "#open"} |
      | 3     | done  | {"summary": "stayed"} |
    When the user asks to open "{site}/page?title=Home&open=/page?title=Popup"
    Then turn 1 succeeded
    And round 2 observed the page titled "Home"
    And round 3 observed the page titled "Home"
    And the task's ledger has 2 child tabs
    And the model was told of 2 new tabs
    And the browser has 3 tabs open for the task
    And 3 tabs are open
