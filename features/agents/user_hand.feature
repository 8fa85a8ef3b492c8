@conformance
Feature: The user's own hand
  The person at the browser acts too: they answer a dialog the page opened before the agent
  does, or open a tab of their own. A dialog they answered is gone: an agent that still reports
  it open (a phantom dialog) refuses to act on a page that is free. A tab they open is theirs:
  the agent's next call acts on the agent's own page, not on the tab that took the focus.

  @contract-agent-user-hand
  Scenario: An alert the user accepted leaves no phantom dialog: the next snapshot shows the page
    Given the agent under test is on "{site}/dialog?kind=alert&after=300&title=Alerting"
    And before call 1 the user accepts the dialog
    When the agent under test is called:
      | call | tool     | args |
      | 1    | snapshot | {}   |
    Then call 1 succeeded
    And call 1 answered with the page titled "Alerting"
    And call 1's answer lists "go"

  @contract-agent-user-hand
  Scenario: A confirm the user dismissed leaves the page free: the agent's click goes through
    Given the agent under test is on "{site}/dialog?kind=confirm&after=300&title=Asking"
    And before call 1 the user dismisses the dialog
    When the agent under test is called:
      | call | tool     | args                |
      | 1    | snapshot | {}                  |
      | 2    | click    | {"ref": "{ref:go}"} |
    Then call 1 answered with the page titled "Asking"
    And call 2 answered with the page titled "Next"
    And the fixture site served "/page" 1 time

  @contract-agent-user-hand
  Scenario: A tab the user opens does not take the agent's place
    Given the agent under test is on "{site}/page?title=Home"
    And before call 2 the user opens "{site}/page?title=Mine" in a new tab
    When the agent under test is called:
      | call | tool     | args                |
      | 1    | snapshot | {}                  |
      | 2    | snapshot | {}                  |
      | 3    | click    | {"ref": "{ref:go}"} |
    Then call 2 answered with the page titled "Home"
    And call 3 answered with the page titled "Next"

  @contract-agent-user-hand
  Scenario: After the user's own tab, the agent's click acts on the agent's page
    Given the agent under test is on "{site}/page?title=Home"
    And before call 2 the user opens "{site}/page?title=Mine" in a new tab
    When the agent under test is called:
      | call | tool     | args                  |
      | 1    | snapshot | {}                    |
      | 2    | click    | {"ref": "{ref:go@1}"} |
    Then call 2 answered with the page titled "Next"
