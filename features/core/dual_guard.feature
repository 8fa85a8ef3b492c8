@agent @contract-dual-guard
Feature: The dual guard on the open_url path
  docs/design/navigation-transients.md#the-dual-guard: open_url waits for the commit (first guard) and the top of every round waits too
  (second guard). Either one alone catches the about:blank transient; with both off, the
  original race stops the task.

  Scenario Outline: open_url then focus_tab on a slow site, <guards>
    Given the agent starts on "{site}/page?title=Home"
    And the open_url guard is <open_url guard>
    And the loop-top guard is <loop-top guard>
    And the model plans:
      | round | tool      | args                                         |
      | 1     | open_url  | {"url": "{site}/slow?delay=1500&title=Docs"} |
      | 1     | focus_tab | {"tab": "@opened"}                           |
      | 2     | done      | {"summary": "read the docs"}                 |
    When the agent runs the task
    Then <outcome>
    And no navigation listener is left registered

    Examples:
      | guards              | open_url guard | loop-top guard | outcome                                                                      |
      | both on             | on             | on             | the task succeeds                                                            |
      | open_url guard only | on             | off            | the task succeeds                                                            |
      | loop-top guard only | off            | on             | the task succeeds                                                            |
      | both off            | off            | off            | the task stops with "Page navigated to a restricted URL, agent stopped"      |

  Scenario: With only the loop-top guard, the second round is the one that waits
    Given the agent starts on "{site}/page?title=Home"
    And the open_url guard is off
    And the model plans:
      | round | tool      | args                                         |
      | 1     | open_url  | {"url": "{site}/slow?delay=1500&title=Docs"} |
      | 1     | focus_tab | {"tab": "@opened"}                           |
      | 2     | done      | {"summary": "read the docs"}                 |
    When the agent runs the task
    Then the task succeeds
    And the loop-top guard resolved "committed" in round 2
    And round 2 observed the page titled "Docs"
