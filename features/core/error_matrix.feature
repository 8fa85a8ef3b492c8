@agent
Feature: The navigation design's error matrix, both columns
  docs/design/navigation-transients.md#the-error-matrix: what each settle outcome means at the top of a round (the task stops, with the
  design's message) and in the open_url handler (the call fails, the task goes on, the tab stays
  open for the model to close). The fast-fail row does not apply to open_url: its tab is new,
  so nothing is pinned yet whose origin a pending URL could contradict.

  Rule: At the top of a round

    @contract-settle-committed
    Scenario: A commit on the pinned origin: the round observes the new page
      Given the agent starts on "{site}/page?title=Home&go=/slow?delay=3000%26title=Next"
      And the model plans:
        | round | tool  | args                         |
        | 1     | click | {"selector": "#go"}          |
        | 2     | done  | {"summary": "there"}         |
      When the agent runs the task
      Then the task succeeds
      And the loop-top guard resolved "committed" in round 2
      And no navigation listener is left registered

    @contract-loop-top-fast-fail
    Scenario: A pending URL on another origin stops the task at once, without waiting
      Given the agent starts on "{site}/js-redirect?title=Here&after=4000&to={other}/slow?delay=40000%26title=Away"
      And the model plans:
        | round | tool | args                |
        | 1     | wait | {"ms": 6000}        |
        | 2     | done | {"summary": "away"} |
      When the agent runs the task
      Then the task stops with "Page navigated to a different origin, agent stopped"
      And the loop-top guard resolved "fast-fail" in round 2
      And the loop-top guard never waited
      And the task took less than 25000 ms
      And no navigation listener is left registered

    @contract-settle-origin-mismatch
    Scenario: A navigation that commits on another origin stops the task at the commit
      Given the agent starts on "{site}/page?title=Here&go=/redirect?to={other}/page%26delay=1500"
      And the model plans:
        | round | tool  | args                 |
        | 1     | click | {"selector": "#go"}  |
        | 2     | done  | {"summary": "there"} |
      When the agent runs the task
      Then the task stops with "Page navigated to a different origin, agent stopped"
      And the loop-top guard resolved "origin-mismatch" in round 2
      And no navigation listener is left registered

    @contract-settle-timeout
    Scenario: A navigation that never commits stops the task as a restricted URL after the settle timeout
      Given the agent starts on "{site}/page?title=Here&go=/never"
      And the settle timeout is 1000 ms
      And the model plans:
        | round | tool  | args                 |
        | 1     | click | {"selector": "#go"}  |
        | 2     | done  | {"summary": "there"} |
      When the agent runs the task
      Then the task stops with "Page navigated to a restricted URL, agent stopped"
      And the loop-top guard resolved "timeout" in round 2
      And no navigation listener is left registered

    @contract-settle-tab-gone
    Scenario: The tab is closed while the guard waits
      Given the agent starts on "{site}/page?title=Here&go=/never"
      And the settle timeout is 12000 ms
      And the model plans:
        | round | tool  | args                 |
        | 1     | click | {"selector": "#go"}  |
        | 2     | done  | {"summary": "there"} |
      When the agent runs the task and after 6000 ms the user closes the tab
      Then the task stops with "Tab was closed, agent stopped"
      And the loop-top guard resolved "tab-gone" in round 2
      And no navigation listener is left registered

    @contract-settle-tab-gone
    Scenario: The tab is closed between rounds
      Given the agent starts on "{site}/page?title=Here"
      And before round 2 the user closes the tab
      And the model plans:
        | round | tool | args         |
        | 1     | wait | {"ms": 10}   |
        | 2     | done | {}           |
      When the agent runs the task
      Then the task stops with "Tab was closed, agent stopped"
      And the task ran 2 rounds

    @contract-settle-aborted
    Scenario: The user presses Stop while the guard waits
      Given the agent starts on "{site}/page?title=Here&go=/never"
      And the settle timeout is 12000 ms
      And the model plans:
        | round | tool  | args                 |
        | 1     | click | {"selector": "#go"}  |
        | 2     | done  | {"summary": "there"} |
      When the agent runs the task and the user presses Stop after 6000 ms
      Then the task is aborted
      And the task stops with "Task stopped by the user"
      And the loop-top guard resolved "aborted" in round 2
      And no navigation listener is left registered

  Rule: In the open_url handler

    @contract-settle-committed
    Scenario: A commit on the target origin: the tab is pinned and the call succeeds
      Given the model plans:
        | round | tool     | args                                         |
        | 1     | open_url | {"url": "{site}/slow?delay=1000&title=Docs"} |
        | 2     | done     | {"summary": "opened"}                        |
      When the agent runs the task
      Then the task succeeds
      And the open_url guard resolved "committed"
      And the browser has 1 tab open for the task
      And no navigation listener is left registered

    @contract-settle-origin-mismatch @contract-open-url-keeps-tab
    Scenario: A commit on another origin fails the call, and the task goes on
      Given the agent starts on "{site}/page?title=Home"
      And the model plans:
        | round | tool     | args                                         |
        | 1     | open_url | {"url": "{site}/redirect?to={other}/page"}   |
        | 2     | done     | {"summary": "carried on"}                    |
      When the agent runs the task
      Then the task succeeds
      And the open_url guard resolved "origin-mismatch"
      And tool call "open_url" in round 1 failed with "did not commit to {site} within 5s (origin-mismatch)."
      And the browser has 2 tabs open for the task
      And no navigation listener is left registered

    @contract-settle-timeout @contract-open-url-keeps-tab
    Scenario: No commit within the settle timeout fails the call, and the tab stays open
      Given the agent starts on "{site}/page?title=Home"
      And the settle timeout is 1000 ms
      And the model plans:
        | round | tool       | args                           |
        | 1     | open_url   | {"url": "{site}/never"}        |
        | 2     | close_tabs | {"tabs": ["@opened"]}          |
        | 3     | done       | {"summary": "cleaned up"}      |
      When the agent runs the task
      Then the task succeeds
      And the open_url guard resolved "timeout"
      And tool call "open_url" in round 1 failed with "did not commit to {site} within 1s (timeout)."
      And tool call "close_tabs" in round 2 succeeded
      And the browser has 1 tab open for the task
      And no navigation listener is left registered

    @contract-settle-tab-gone @contract-open-url-keeps-tab
    Scenario: The new tab is closed while open_url waits
      Given the agent starts on "{site}/page?title=Home"
      And the settle timeout is 10000 ms
      And the model plans:
        | round | tool     | args                      |
        | 1     | open_url | {"url": "{site}/never"}   |
        | 2     | done     | {"summary": "carried on"} |
      When the agent runs the task and after 4000 ms the user closes the newest tab
      Then the task succeeds
      And the open_url guard resolved "tab-gone"
      And tool call "open_url" in round 1 failed with "(tab-gone)."
      And no navigation listener is left registered

    @contract-settle-aborted
    Scenario: The user presses Stop while open_url waits
      Given the agent starts on "{site}/page?title=Home"
      And the settle timeout is 10000 ms
      And the model plans:
        | round | tool     | args                      |
        | 1     | open_url | {"url": "{site}/never"}   |
        | 2     | done     | {"summary": "carried on"} |
      When the agent runs the task and the user presses Stop after 6000 ms
      Then the task is aborted
      And the open_url guard resolved "aborted"
      And no navigation listener is left registered
