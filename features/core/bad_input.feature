@agent
Feature: Bad tool calls fail the call, never the task
  A model turn with an unknown tool, missing or ill-typed arguments, an unknown tab reference or
  a URL that does not parse: that call fails with a message naming the problem, and the loop
  goes on. open_url refuses a restricted URL before any tab exists.

  @contract-bad-tool-input
  Scenario: Each kind of bad call is named, and the task carries on
    Given the agent starts on "{site}/page?title=Home"
    And click and type wait at most 300 ms for their target
    And the model plans:
      | round | tool       | args                          |
      | 1     | fly        | {}                            |
      | 2     | click      | {"selector": 3}               |
      | 3     | focus_tab  | {"tab": "@opened#2"}          |
      | 4     | navigate   | {"url": "not a url"}          |
      | 5     | wait       | {"ms": "soon"}                |
      | 6     | type       | {"selector": "#q"}            |
      | 7     | click      | {"selector": "#nothing-here"} |
      | 8     | press_key  | {"key": "Hyper"}              |
      | 9     | close_tabs | {"tabs": "all"}               |
      | 10    | done       | {"summary": "still here"}     |
    When the agent runs the task
    Then the task succeeds
    And the task ran 10 rounds
    And tool call "fly" in round 1 failed with "unknown tool"
    And tool call "click" in round 2 failed with "must be a non-empty string, got 3"
    And tool call "focus_tab" in round 3 failed with "unknown tab reference"
    And tool call "navigate" in round 4 failed with "is not a URL"
    And tool call "wait" in round 5 failed with "must be a whole number of milliseconds"
    And tool call "type" in round 6 failed with "missing argument"
    And tool call "click" in round 7 failed with "not found: no element matches"
    And tool call "click" in round 7 was retried 2 times
    And tool call "press_key" in round 8 failed with "must be a key name"
    And tool call "close_tabs" in round 9 failed with "must be a non-empty list of tab references"
    And round 10 observed the page titled "Home"

  @contract-restricted-refused
  Scenario: open_url refuses a restricted URL before any tab exists
    Given the agent starts on "{site}/page?title=Home"
    And the model plans:
      | round | tool     | args                             |
      | 1     | open_url | {"url": "javascript:alert(1)"}   |
      | 1     | open_url | {"url": "chrome://settings"}     |
      | 1     | open_url | {"url": "data:text/html,hi"}     |
      | 2     | done     | {"summary": "refused"}           |
    When the agent runs the task
    Then the task succeeds
    And tool call "open_url" in round 1 failed with "open_url: javascript:alert(1) is a restricted URL"
    And 1 tab is open

  @contract-loop-limits
  Scenario: A round whose model gives no action stops the task
    Given the agent starts on "{site}/page?title=Home"
    And the model plans:
      | round | tool | args       |
      | 1     | wait | {"ms": 10} |
    When the agent runs the task
    Then the task stops with "The model gave no action, agent stopped"
    And the task ran 2 rounds

  @contract-loop-limits
  Scenario: The round limit stops a task that never finishes
    Given the agent starts on "{site}/page?title=Home"
    And the round limit is 3
    And the model plans:
      | round | tool | args       |
      | 1     | wait | {"ms": 10} |
      | 2     | wait | {"ms": 10} |
      | 3     | wait | {"ms": 10} |
      | 4     | done | {}         |
    When the agent runs the task
    Then the task stops with "Round limit reached, agent stopped"
    And the task ran 3 rounds
