@agent @contract-extended-trigger
Feature: Any navigation in flight holds the round, not only about:blank
  The design's loop-top trigger is "the tab's URL is empty or about:blank": a new tab's transient.
  An existing tab that navigates keeps reporting its old URL until the commit (see
  features/browser/existing_tab.feature), so that trigger lets the round observe a page that is
  leaving. navguard's guard also treats any started, uncommitted top-level navigation as in
  flight. These scenarios show what that catches and the design's trigger misses.

  Scenario Outline: A link to a slow page, observed in the next round, with the <trigger> trigger
    Given the agent starts on "{site}/page?title=Home&go=/slow?delay=3000%26title=Next"
    And the loop-top guard uses the <trigger> in-flight trigger
    And the model plans:
      | round | tool  | args                          |
      | 1     | click | {"selector": "#go"}           |
      | 2     | done  | {"summary": "followed link"}  |
    When the agent runs the task
    Then the trace of round 2 shows the guard "<guard>"
    And <outcome>

    Examples:
      | trigger  | guard         | outcome                                                               |
      | extended | settled       | the task succeeds                                                     |
      | seed's   | not-in-flight | the task stops with "The page could not be observed, agent stopped"   |

  Scenario Outline: A script redirect to another origin, with the <trigger> trigger
    The pending URL reveals the other origin before the commit: the extended trigger stops at
    once (fast-fail); the design's trigger lets the round try to observe the leaving page.
    Given the agent starts on "{site}/js-redirect?title=Here&after=4000&to={other}/slow?delay=9000%26title=Away"
    And the loop-top guard uses the <trigger> in-flight trigger
    And the model plans:
      | round | tool | args                |
      | 1     | wait | {"ms": 6000}        |
      | 2     | done | {"summary": "away"} |
    When the agent runs the task
    Then the trace of round 2 shows the guard "<guard>"
    And the task stops with "<message>"

    Examples:
      | trigger  | guard         | message                                             |
      | extended | fast-fail     | Page navigated to a different origin, agent stopped |
      | seed's   | not-in-flight | The page could not be observed, agent stopped       |
