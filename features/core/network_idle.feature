@agent
Feature: Waiting for the network to go idle
  wait_for_network_idle waits until the focused tab has had no request in flight for the idle
  window (500 ms unless told), built from the browser's own network events. An endless event
  stream does not keep a page busy; a page that stays busy fails the call with timed out, and
  the loop goes on.

  @contract-network-idle
  Scenario: The wait ends only after every fetch the page started has finished
    Given the agent starts on "{site}/fetches?count=4&delay=3000&title=Many"
    And the model plans:
      | round | tool                  | args                                     |
      | 1     | wait_for              | {"text": "loaded", "timeout_ms": 100}    |
      | 2     | wait_for_network_idle | {}                                       |
      | 2     | extract               | {"selector": "#status"}                  |
      | 3     | done                  | {"summary": "all fetched"}               |
    When the agent runs the task
    Then the task succeeds
    And tool call "wait_for" in round 1 failed with "timed out after 100 ms"
    And tool call "wait_for_network_idle" in round 2 succeeded
    And tool call "extract" in round 2 answered '"text":"loaded"'

  @contract-network-idle
  Scenario: An endless event stream does not keep the page busy
    Given the agent starts on "{site}/stream?delay=1500"
    And the model plans:
      | round | tool                  | args                                   |
      | 1     | wait_for_network_idle | {"idle_ms": 500, "timeout_ms": 8000}   |
      | 1     | extract               | {"selector": "#status"}                |
      | 2     | done                  | {"summary": "idle despite the stream"} |
    When the agent runs the task
    Then the task succeeds
    And tool call "wait_for_network_idle" in round 1 succeeded
    And tool call "extract" in round 1 answered '"text":"loaded"'

  @contract-network-idle
  Scenario: A page that stays busy fails the wait with timed out, naming what is in flight, and the loop goes on
    Given the agent starts on "{site}/fetches?count=1&delay=6000"
    And the model plans:
      | round | tool                  | args                  |
      | 1     | wait_for_network_idle | {"timeout_ms": 1000}  |
      | 2     | done                  | {"summary": "went on"} |
    When the agent runs the task
    Then the task succeeds
    And tool call "wait_for_network_idle" in round 1 failed with "timed out after 1000 ms: still in flight: {site}/data"
    And the task reported progress "waiting for the network to be idle for 500 ms" in round 1
