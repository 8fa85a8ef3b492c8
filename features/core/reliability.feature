@agent
Feature: The reliability layer: watchdog, waits, pause and resume, checkpoints, segments
  Every tool call runs under a watchdog: a deadline, progress at least once a second while it
  waits, retries of what is safe to try again. Waits are event-driven and survive navigations.
  The user may pause a task, the model may ask the user, a long task pauses after its allowed
  segments; on resume the model is told what the user changed, and a checkpoint in the task
  store lets a new agent take the task up.

  # @serial: Firefox runs the pages of one site in shared content processes, even across user
  # contexts, and every fixture site is 127.0.0.1: the frozen page would freeze the pages of the
  # scenarios running beside it (the agent's own calls still end at their deadlines).
  @contract-watchdog-deadline @serial
  Scenario: A page whose main thread is frozen cannot hang the task: the call is cut off and the loop goes on
    Given the agent starts on "{site}/busy?ms=6000"
    And the tool timeout is 2000 ms
    And the model plans:
      | round | tool  | args                                                 |
      | 1     | click | {"selector": "#busy"}                                |
      | 1     | click | {"selector": "#busy"}                                |
      | 2     | done  | {"summary": "survived", "expect": {"text": "done 1"}} |
    When the agent runs the task
    Then the task succeeds
    And tool call "click" in round 1 failed with "timed out after 2000 ms"
    And the trace says "click not retried: the input may already have taken effect"
    And the task reported progress "waiting for #busy to be present and visible" in round 1
    And the task ran 2 rounds

  @contract-watchdog-progress
  Scenario: A wait reports what it waits for at least once a second
    Given the agent starts on "{site}/page?title=Home&go=/slow?delay=2500%26title=Next"
    And the model plans:
      | round | tool  | args                                                    |
      | 1     | click | {"selector": "#go"}                                     |
      | 2     | done  | {"summary": "arrived", "expect": {"title": "Next"}}     |
    When the agent runs the task
    Then the task succeeds
    And the loop-top guard resolved "committed" in round 2
    And the task reported progress "waiting for the navigation to commit" in round 2
    And round 2's progress reports came at most 1000 ms apart, 3 at least
    And round 2 observed the page titled "Next"

  @contract-watchdog-retries
  Scenario: A target that never appears is looked for again with backoff, then the call fails with not found
    Given the agent starts on "{site}/page?title=Home"
    And click and type wait at most 300 ms for their target
    And the model plans:
      | round | tool  | args                          |
      | 1     | click | {"selector": "#nothing-here"} |
      | 2     | done  | {"summary": "still here"}     |
    When the agent runs the task
    Then the task succeeds
    And tool call "click" in round 1 failed with "not found"
    And tool call "click" in round 1 was retried 2 times

  @contract-watchdog-retries
  Scenario: A click waits for its target to appear, as Playwright's actions do
    Given the agent starts on "{site}/late?after=1500&text=Later"
    And the model plans:
      | round | tool  | args                                                  |
      | 1     | click | {"selector": "#late"}                                 |
      | 2     | done  | {"summary": "followed", "expect": {"title": "Late"}}  |
    When the agent runs the task
    Then the task succeeds
    And tool call "click" in round 1 succeeded
    And tool call "click" in round 1 was retried 0 times

  @contract-wait-for
  Scenario: wait_for waits, event-driven, for an element that appears later
    Given the agent starts on "{site}/late?after=1500&text=Later"
    And the model plans:
      | round | tool     | args                                       |
      | 1     | wait_for | {"selector": "#late", "timeout_ms": 10000} |
      | 2     | done     | {"summary": "seen", "expect": {"present": "#late"}} |
    When the agent runs the task
    Then the task succeeds
    And tool call "wait_for" in round 1 succeeded

  @contract-wait-for
  Scenario: wait_for waits for an element to be gone
    Given the agent starts on "{site}/counter"
    And the model plans:
      | round | tool     | args                                   |
      | 1     | click    | {"selector": "#remove"}                |
      | 1     | wait_for | {"selector": "#inc", "state": "absent"} |
      | 2     | done     | {"summary": "gone"}                    |
    When the agent runs the task
    Then the task succeeds
    And tool call "wait_for" in round 1 succeeded

  @contract-wait-for
  Scenario: A wait that spans a navigation re-arms on the new document
    Given the agent starts on "{site}/page?title=Home"
    And the model plans:
      | round | tool     | args                                                 |
      | 1     | navigate | {"url": "{site}/slow?delay=1500&title=Next"}         |
      | 1     | wait_for | {"text": "Next", "url": "{site}/slow"}               |
      | 2     | done     | {"summary": "arrived", "expect": {"title": "Next"}}  |
    When the agent runs the task
    Then the task succeeds
    And tool call "wait_for" in round 1 succeeded
    And round 2 observed the page titled "Next"

  @contract-wait-for
  Scenario: A wait whose condition never holds fails with timed out, and the loop goes on
    Given the agent starts on "{site}/page?title=Home"
    And the model plans:
      | round | tool     | args                                        |
      | 1     | wait_for | {"selector": "#never", "timeout_ms": 800}   |
      | 2     | done     | {"summary": "went on"}                      |
    When the agent runs the task
    Then the task succeeds
    And tool call "wait_for" in round 1 failed with "timed out after 800 ms"
    And tool call "wait_for" in round 1 failed with "nothing matches"

  @contract-same-document
  Scenario: A single-page app's route change is a same-document navigation the verification waits through
    Given the agent starts on "{site}/spa?title=App&delay=800"
    And the model plans:
      | round | tool     | args                                                   |
      | 1     | click    | {"selector": "#one", "expect": {"text": "Page one"}}   |
      | 2     | click    | {"selector": "#two"}                                   |
      | 2     | wait_for | {"text": "Page two"}                                   |
      | 3     | done     | {"summary": "routed", "expect": {"url": "{site}/spa"}} |
    When the agent runs the task
    Then the task succeeds
    And tool call "click" in round 1 was verified
    And tool call "wait_for" in round 2 succeeded
    And the tab's events include, in order:
      | event         |
      | same-document |
      | same-document |

  @contract-pause-resume
  Scenario: The user pauses the task, changes a field, resumes: the model is told what changed
    Given the agent starts on "{site}/login"
    And the model plans:
      | round | tool | args                       |
      | 1     | wait | {"ms": 1500}               |
      | 2     | done | {"summary": "resumed"}     |
    When the agent starts the task
    And the user pauses the task
    Then the task is paused
    When the user types "ada" into "#user"
    And the user resumes the task
    And the task ends
    Then the task succeeds
    And round 2 told the model that the user changed "the field #user"
    And round 2 told the model that the user changed "ada"

  @contract-pause-resume
  Scenario: The model asks the user; the task waits until the user resumes it
    Given the agent starts on "{site}/counter"
    And the model plans:
      | round | tool     | args                                                   |
      | 1     | ask_user | {"question": "Shall I count?"}                         |
      | 1     | click    | {"selector": "#inc"}                                   |
      | 2     | done     | {"summary": "counted by hand", "expect": {"text": "Count: 1"}} |
    When the agent starts the task
    And the task pauses
    Then the task is paused
    When the user clicks "#inc"
    And the user resumes the task
    And the task ends
    Then the task succeeds
    And tool call "click" in round 1 failed with "not run: the task paused to ask the user"
    And round 2 told the model that the user changed "the page"

  @contract-checkpoint
  Scenario: A paused task survives a restart of the agent: a new agent resumes it from its checkpoint
    Given the agent starts on "{site}/login"
    And the model plans:
      | round | tool     | args                              |
      | 1     | ask_user | {"question": "Which account?"}    |
      | 2     | done     | {"summary": "after the restart"}  |
    When the agent starts the task
    And the task pauses
    And the user types "ada" into "#user"
    And the agent is restarted from the task's checkpoint
    And the task ends
    Then the task succeeds
    And the task ran 2 rounds
    And round 2 told the model that the user changed "the field #user"

  @contract-segments
  Scenario: Each segment begins with a summary of the last; after the allowed segments the task asks whether to go on
    Given the agent starts on "{site}/counter"
    And a segment is 2 rounds
    And the task may run 2 segments
    And the model plans:
      | round | tool  | args                                                      |
      | 1     | click | {"selector": "#inc"}                                      |
      | 2     | click | {"selector": "#inc"}                                      |
      | 3     | click | {"selector": "#inc"}                                      |
      | 4     | click | {"selector": "#inc"}                                      |
      | 5     | click | {"selector": "#inc"}                                      |
      | 6     | done  | {"summary": "counted", "expect": {"text": "Count: 5"}}    |
    When the agent starts the task
    And the task pauses
    Then the task paused after round 4 to ask whether to continue
    When the user resumes the task
    And the task ends
    Then the task succeeds
    And round 3 began with a segment summary
    And round 5 began with a segment summary

  @contract-segments
  Scenario: An agent without a user stops when its segments run out
    Given the agent starts on "{site}/counter"
    And a segment is 1 rounds
    And the task may run 1 segments
    And the model plans:
      | round | tool  | args                 |
      | 1     | click | {"selector": "#inc"} |
      | 2     | done  | {"summary": "never"} |
    When the agent runs the task
    Then the task stops with "The task needs the user to go on, agent stopped"
    And the task ran 1 round
