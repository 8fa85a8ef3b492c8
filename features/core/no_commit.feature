@agent
Feature: A navigation that never commits ends, and nobody waits for it
  A link answered 204 No Content or 205 Reset Content leaves the page where it is: the
  navigation ends without a commit. Chromium says so with navigationFailed; Firefox sends no
  navigation event for it, only the document request's network.fetchError, which the adapter
  reads as the navigation's failure. Either way the settle helper, the loop-top guard and
  open_url see the navigation end at once; none waits out its timeout for a commit that will
  never come. Each scenario's timeout is far longer than the time it may take, so a wait would
  show as a timeout, a stop or a missed bound.

  @contract-no-commit
  Scenario Outline: A new tab answered <code> ends its settle at once as failed
    Given the settle timeout is 60000 ms
    When a new tab is opened on "{site}/status?code=<code>" and settled for "{site}"
    Then the settle outcome is "failed"
    And the tab's URL is "about:blank"
    And no navigation listener is left registered

    Examples:
      | code |
      | 204  |
      | 205  |

  @contract-no-commit
  Scenario Outline: A click on a link answered <code>: the next round observes the page that stayed
    Given the agent starts on "{site}/page?title=Home&go=/status?code=<code>"
    And the settle timeout is 60000 ms
    And the model plans:
      | round | tool  | args                                                   |
      | 1     | click | {"selector": "#go"}                                    |
      | 2     | done  | {"summary": "stayed", "expect": {"title": "Home"}}     |
    When the agent runs the task
    Then the task succeeds
    And the task ended verified
    And round 2 observed the page titled "Home"
    And the fixture site served "/status" 1 time
    And the task took less than 30000 ms

    Examples:
      | code |
      | 204  |
      | 205  |

  @contract-no-commit
  Scenario: navigate to a URL answered 204: the next round observes the page that stayed
    Given the agent starts on "{site}/page?title=Home"
    And the settle timeout is 60000 ms
    And the model plans:
      | round | tool     | args                                               |
      | 1     | navigate | {"url": "{site}/status?code=204"}                  |
      | 2     | done     | {"summary": "stayed", "expect": {"title": "Home"}} |
    When the agent runs the task
    Then the task succeeds
    And round 2 observed the page titled "Home"
    And the task took less than 30000 ms

  @contract-no-commit
  Scenario: open_url on a URL answered 204 fails at once; the task goes on
    Given the agent starts on "{site}/page?title=Home"
    And the settle timeout is 60000 ms
    And the model plans:
      | round | tool     | args                                                 |
      | 1     | open_url | {"url": "{site}/status?code=204", "active": true}    |
      | 2     | done     | {"summary": "no page there"}                         |
    When the agent runs the task
    Then tool call "open_url" in round 1 failed with "did not commit"
    And the open_url guard resolved "failed"
    And the task succeeds
    And the task took less than 30000 ms

  @contract-guard-rerun
  Scenario: Round 2 settles on the committed page, then fast-fails when it leaves for another origin
    The click's navigation is still in flight at round 2's top (its answer is held 6 s, past the
    click's settle cap): the guard waits and settles on the same origin. The page it commits
    redirects itself 300 ms after its load, to another origin, inside the round's quiet window:
    the round runs the guard again, which stops at once on the pending URL. The round's guard
    decided twice; the step phrases read the first, the last, any, and both in order.
    Given the agent starts on "{site}/page?title=Home&go=/redirect?delay=6000%26to=/js-redirect?title=Hop%2526after=300%2526to={other}/slow?delay=9000"
    And the settle timeout is 10000 ms
    And the action quiet window is 2000 ms
    And the model plans:
      | round | tool  | args                  |
      | 1     | click | {"selector": "#go"}   |
      | 2     | done  | {"summary": "there"}  |
    When the agent runs the task
    Then the task stops with "Page navigated to a different origin, agent stopped"
    And the loop-top guard resolved "committed" then "fast-fail" in round 2
    And the loop-top guard first resolved "committed" in round 2
    And the loop-top guard last resolved "fast-fail" in round 2
    And the loop-top guard resolved "fast-fail" in round 2
    And the loop-top guard resolved "committed" in round 2
