@agent
Feature: The closed loop: observe, act, verify
  Actions are bound to the document the model observed (refs), what the model expects is
  verified on the settled page, done is accepted only when verified on the page that was
  observed, and an agent that repeats itself is warned, then stopped.

  @contract-loop-snapshot
  Scenario: The model sees roles, names, values and forms, and never a password
    Given the agent starts on "{site}/login?next=/page?title=Welcome"
    And the model plans:
      | round | tool | args                                                   |
      | 1     | type | {"selector": "#user", "text": "ada"}                   |
      | 2     | type | {"selector": "#password", "text": "s3cret-pw"}         |
      | 3     | done | {"summary": "filled", "expect": {"present": "#login"}} |
    When the agent runs the task
    Then the task ended verified
    And the model saw "#user" in round 3 with value "ada"
    And the model saw "#password" in round 3 with value "[redacted]"
    And the model saw "#login" in round 3 with role "button" and name "Log in"
    And the model saw "#password" in round 3 in a form that posts to "{site}/session"
    And the model never saw "s3cret-pw"

  @contract-loop-refs
  Scenario: A ref that outlives its page is stale, even where the next page has the same ids
    Given the agent starts on "{site}/page?title=First&go=/page?title=Second"
    And the model plans:
      | round | tool  | args                                                  |
      | 1     | click | {"ref": "{ref:#go}"}                                  |
      | 2     | click | {"ref": "{ref:#go@1}"}                                |
      | 3     | done  | {"summary": "stayed", "expect": {"title": "Second"}} |
    When the agent runs the task
    Then tool call "click" in round 1 succeeded
    And tool call "click" in round 2 failed with "stale ref"
    And round 3 observed the page titled "Second"
    And the task ended verified
    And the fixture site served "/page" 2 times

  @contract-loop-refs
  Scenario: A ref to an element that was removed is stale, and nothing is clicked
    Given the agent starts on "{site}/counter"
    And the model plans:
      | round | tool  | args                                                                             |
      | 1     | click | {"ref": "{ref:#remove}"}                                                         |
      | 2     | click | {"ref": "{ref:#inc@1}"}                                                          |
      | 3     | done  | {"summary": "nothing added", "expect": {"text": "Count: 0", "absent": "#inc"}} |
    When the agent runs the task
    Then tool call "click" in round 2 failed with "stale ref"
    And tool call "click" in round 2 failed with "no longer in the page"
    And the task ended verified

  @contract-loop-refs
  Scenario: A ref stays good on a page that did not change
    Given the agent starts on "{site}/counter"
    And the model plans:
      | round | tool  | args                                                 |
      | 1     | click | {"ref": "{ref:#inc}"}                                |
      | 2     | click | {"ref": "{ref:#inc@1}"}                              |
      | 3     | done  | {"summary": "two", "expect": {"text": "Count: 2"}} |
    When the agent runs the task
    Then tool call "click" in round 2 succeeded
    And the task ended verified

  @contract-loop-verify
  Scenario: A failed expectation fails the call, and the next round repairs it
    Given the agent starts on "{site}/counter"
    And the model plans:
      | round | tool  | args                                                      |
      | 1     | click | {"selector": "#noop", "expect": {"text": "Count: 1"}}     |
      | 2     | click | {"selector": "#inc", "expect": {"text": "Count: 1"}}      |
      | 3     | done  | {"summary": "one", "expect": {"text": "Count: 1"}}        |
    When the agent runs the task
    Then tool call "click" in round 1 failed verification
    And tool call "click" in round 1 failed with "failed verification: the page's text does not contain"
    And round 2 was a repair after "failed-verification"
    And tool call "click" in round 2 was verified
    And the task made 1 repair
    And the task ended verified

  @contract-loop-verify
  Scenario Outline: An expectation may hold any text a page may show: <what>
    The expectation reaches the page as the check's argument, never as part of its script, so
    no text of the model's can change what the check does.
    Given the agent starts on "{site}/page?title=<in the URL>"
    And the model plans:
      | round | tool | args                                                     |
      | 1     | done | {"summary": "there", "expect": {"title": "<title>"}}     |
    When the agent runs the task
    Then the task succeeds
    And the task ended verified

    Examples:
      | what                             | in the URL                                             | title                        |
      | letters the check once replaced  | Sign%20in%20with%20SMS                                 | Sign in with SMS             |
      | the check's own words            | WANT%20MS%20PARSE_WAIT%20TEXT%20MAX                    | WANT MS PARSE_WAIT TEXT MAX  |
      | quotes and a closing script tag  | say%20%27there%27%20%3C%2Fscript%3E                    | say 'there' </script>        |
      | backticks and an expression      | %60%2B%20alert(1)%20%2B%60%20%29%3B%20x                | `+ alert(1) +` ); x          |
      | letters of other scripts         | %D0%9F%D1%80%D0%B8%D0%B2%D0%B5%D1%82%20%E4%BD%A0%E5%A5%BD%20%F0%9F%99%82 | Привет 你好 🙂 |

  @contract-loop-done
  Scenario: A premature done is refused until the page shows what the model expects
    Given done needs a verification
    And the agent starts on "{site}/late?after=8000&text=Continue"
    And the model plans:
      | round | tool | args                                                       |
      | 1     | done | {"summary": "too soon"}                                    |
      | 2     | done | {"summary": "still too soon", "expect": {"present": "#late"}} |
      | 3     | wait | {"ms": 6000}                                               |
      | 4     | done | {"summary": "there", "expect": {"present": "#late"}}       |
    When the agent runs the task
    Then the done in round 1 was refused with "no verification given"
    And the done in round 2 was refused with "verification failed: nothing matches"
    And round 2 was a repair after "refused-done"
    And round 3 was a repair after "refused-done"
    And the task made 2 repairs
    And the task ended verified
    And the task ran 4 rounds

  @contract-loop-quiet-page
  Scenario: A page that redirects itself 50 ms after it loads is never observed
    Given the agent starts on "{site}/js-redirect?to=/page?title=Landed&after=50"
    And the model plans:
      | round | tool | args                                                  |
      | 1     | done | {"summary": "landed", "expect": {"title": "Landed"}} |
    When the agent runs the task
    Then round 1 observed the page titled "Landed"
    And the task ended verified

  @contract-loop-quiet-page
  Scenario: A click whose data ends long after its headers is observed with the data, never half loaded
    Given the agent starts on "{site}/spa?title=App&delay=0&trickle=700"
    And the model plans:
      | round | tool  | args                                                   |
      | 1     | click | {"selector": "#one"}                                   |
      | 2     | click | {"selector": "#two"}                                   |
      | 3     | done  | {"summary": "routed", "expect": {"text": "Page two"}} |
    When the agent runs the task
    Then the task ended verified
    And the model never saw "Loading"

  @contract-loop-done
  Scenario: A done on a page that began to leave after it was observed is refused
    Given the agent starts on "{site}/js-redirect?to=/page?title=Later&after=4000"
    And the model takes 5000 ms to answer in round 1
    And the model plans:
      | round | tool | args                                                 |
      | 1     | done | {"summary": "here"}                                  |
      | 2     | done | {"summary": "later", "expect": {"title": "Later"}} |
    When the agent runs the task
    Then round 1 observed the page titled "Script redirect"
    And the done in round 1 was refused with "the page changed since it was observed"
    And round 2 observed the page titled "Later"
    And the task ended verified

  @contract-loop-no-progress
  Scenario: The same action on an unchanged page warns the model, then stops the task
    Given the agent starts on "{site}/counter"
    And the model plans:
      | round | tool  | args                  |
      | 1     | click | {"selector": "#noop"} |
      | 2     | click | {"selector": "#noop"} |
      | 3     | click | {"selector": "#noop"} |
      | 4     | click | {"selector": "#noop"} |
      | 5     | click | {"selector": "#noop"} |
      | 6     | done  | {"summary": "never"}  |
    When the agent runs the task
    Then the model was warned of no progress
    And round 4 was a repair after "no-progress"
    And the task stops with "No progress, agent stopped"
    And the task ran 5 rounds

  @contract-loop-no-progress
  Scenario: Two actions that swing the page back and forth warn the model, then stop the task
    Given the agent starts on "{site}/spa?title=App&delay=50"
    And the model plans:
      | round | tool  | args                 |
      | 1     | click | {"selector": "#one"} |
      | 2     | click | {"selector": "#two"} |
      | 3     | click | {"selector": "#one"} |
      | 4     | click | {"selector": "#two"} |
      | 5     | click | {"selector": "#one"} |
      | 6     | click | {"selector": "#two"} |
      | 7     | click | {"selector": "#one"} |
      | 8     | done  | {"summary": "never"} |
    When the agent runs the task
    Then the model was warned of no progress
    And the task stops with "No progress, agent stopped"
    And the task ran 7 rounds

  @contract-loop-no-progress
  Scenario: An action that changes the page each time is progress
    Given the agent starts on "{site}/counter"
    And the model plans:
      | round | tool  | args                                                |
      | 1     | click | {"selector": "#inc"}                                |
      | 2     | click | {"selector": "#inc"}                                |
      | 3     | click | {"selector": "#inc"}                                |
      | 4     | click | {"selector": "#inc"}                                |
      | 5     | click | {"selector": "#inc"}                                |
      | 6     | done  | {"summary": "five", "expect": {"text": "Count: 5"}} |
    When the agent runs the task
    Then the model was never warned of no progress
    And the task ended verified

  @contract-loop-no-progress
  Scenario: With no-progress detection off, repeats run until the plan ends
    Given no-progress detection is off
    And the agent starts on "{site}/counter"
    And the model plans:
      | round | tool  | args                  |
      | 1     | click | {"selector": "#noop"} |
      | 2     | click | {"selector": "#noop"} |
      | 3     | click | {"selector": "#noop"} |
      | 4     | click | {"selector": "#noop"} |
      | 5     | click | {"selector": "#noop"} |
      | 6     | done  | {"summary": "done"}   |
    When the agent runs the task
    Then the model was never warned of no progress
    And the task succeeds

  @contract-loop-bad-input
  Scenario: Bad refs and bad expectations fail the call, naming the argument
    Given the agent starts on "{site}/page?title=Home"
    And the model plans:
      | round | tool      | args                                                |
      | 1     | click     | {"ref": "#go"}                                      |
      | 2     | click     | {"ref": "{ref:#go}", "selector": "#go"}             |
      | 3     | click     | {"selector": "#go", "expect": {"colour": "red"}}    |
      | 4     | done      | {"summary": "x", "expect": "Home"}                  |
      | 5     | open_url  | {"url": "{site}/page?title=Other"}                  |
      | 6     | focus_tab | {"tab": "@opened"}                                  |
      | 7     | click     | {"ref": "{ref:#go@5}"}                              |
      | 8     | done      | {"summary": "still here"}                           |
    When the agent runs the task
    Then the task succeeds
    And tool call "click" in round 1 failed with "is not a ref"
    And tool call "click" in round 2 failed with "not both"
    And tool call "click" in round 3 failed with "unknown key"
    And tool call "done" in round 4 failed with "must be an object"
    And tool call "click" in round 7 failed with "belongs to tab"
    And the fixture site served "/page" 2 times
