@agent
Feature: How long the agent waits after an action, and the model's think time
  After each action the agent waits until the tab has had no event for the quiet window, at most
  the settle cap; a navigation still in flight then is left to the next round's loop-top guard.
  A slow model's think time is a wait like any other: the user's Stop ends it.

  @contract-action-settle
  Scenario: A quiet window longer than the navigation lets the action settle it: the loop top has nothing to wait for
    Given the agent starts on "{site}/page?title=Home&go=/slow?delay=1000%26title=Next"
    And the action quiet window is 2000 ms
    And the action settle cap is 8000 ms
    And the model plans:
      | round | tool  | args                         |
      | 1     | click | {"selector": "#go"}          |
      | 2     | done  | {"summary": "followed link"} |
    When the agent runs the task
    Then the task succeeds
    And the trace of round 2 shows the guard "not-in-flight"
    And the loop-top guard never waited
    And round 2 observed the page titled "Next"
    And round 2 observed the page at "{site}/slow?delay=1000&title=Next"

  @contract-action-settle
  Scenario: The settle cap ends the quiet window early: the loop top settles what is still in flight
    Given the agent starts on "{site}/page?title=Home&go=/slow?delay=3000%26title=Next"
    And the action quiet window is 2000 ms
    And the action settle cap is 600 ms
    And the model plans:
      | round | tool  | args                         |
      | 1     | click | {"selector": "#go"}          |
      | 2     | done  | {"summary": "followed link"} |
    When the agent runs the task
    Then the task succeeds
    And the loop-top guard resolved "committed" in round 2
    And round 2 observed the page at "{site}/slow?delay=3000&title=Next"

  @contract-settle-aborted
  Scenario: The user presses Stop while the model thinks: the task is aborted at once
    Given the agent starts on "{site}/page?title=Home"
    And the model takes 30000 ms to answer
    And the model plans:
      | round | tool | args                   |
      | 1     | done | {"summary": "too late"} |
    When the agent runs the task and the user presses Stop after 500 ms
    Then the task is aborted
    And the task ran 1 round
    And the task took less than 15000 ms

  @contract-settle-aborted
  Scenario: The user presses Stop while the model thinks in a later round
    Given the agent starts on "{site}/page?title=Home"
    And the model takes 30000 ms to answer in round 2
    And the model plans:
      | round | tool | args                   |
      | 1     | wait | {"ms": 10}             |
      | 2     | done | {"summary": "too late"} |
    When the agent runs the task and the user presses Stop after 2500 ms
    Then the task is aborted
    And tool call "wait" in round 1 succeeded
    And the task ran 2 rounds
    And the task took less than 15000 ms

  @contract-browser-active-tab
  Scenario: focus_tab on @active follows the tab the user brought back to the front
    The start page opens a popup on load, which comes to the front; the page answers once it is
    hidden, from its own visibilitychange event.
    Given the agent starts on "{site}/popup?to=/page?title=Popped"
    When the page is asked for "document.visibilityState === 'hidden' ? 'hidden' : new Promise(done => document.addEventListener('visibilitychange', () => done(document.visibilityState), { once: true }))"
    Then the page answers "hidden"
    Given the user switches to the tab
    And the model plans:
      | round | tool      | args                 |
      | 1     | focus_tab | {"tab": "@active"}   |
      | 2     | done      | {"summary": "back"}  |
    When the agent runs the task
    Then the task succeeds
    And tool call "focus_tab" in round 1 succeeded
    And round 2 observed the page titled "Popup"
    And round 2 observed the page at "{site}/popup?to=/page?title=Popped"
