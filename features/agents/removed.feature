@conformance
Feature: Elements the page removed or replaced
  Pages re-render: a framework replaces a list's button with a new one of the same name after a
  press or a refresh, or drops it. A ref names the element the agent saw; once the page has
  removed that element, a click on the ref must fail, never press nothing and report it done,
  and never press the new button of the same name in its place: the model did not see that one,
  and a press it did not mean (a second order, a second payment) is worse than a refusal. The
  site's request log counts the presses that really happened (`/pressed`).

  @contract-agent-removed
  Scenario: A ref to a button the page's script removed is refused, and nothing is pressed
    Given the agent under test is on "{site}/rerender"
    When the agent under test is called:
      | call | tool     | args                        |
      | 1    | snapshot | {}                          |
      | 2    | click    | {"ref": "{ref:Remove}"}     |
      | 3    | click    | {"ref": "{ref:Press me@1}"} |
    Then call 2 succeeded
    And call 3 failed
    And the agent's page shows "Removed"
    And the agent's page shows "Pressed 0"
    And the fixture site served "/pressed" 0 times

  # The list is replaced once the server answers the refresh, after the click on Refresh has
  # been answered: the agent waits for it, then uses the ref it had.
  @contract-agent-removed
  Scenario: A ref to a button the page replaced with one of the same name is refused; a fresh ref presses the new one
    Given the agent under test is on "{site}/rerender?delay=300"
    When the agent under test is called:
      | call | tool     | args                        |
      | 1    | snapshot | {}                          |
      | 2    | click    | {"ref": "{ref:Refresh}"}    |
      | 3    | wait_for | {"text": "Rendered 2"}      |
      | 4    | click    | {"ref": "{ref:Press me@1}"} |
      | 5    | snapshot | {}                          |
      | 6    | click    | {"ref": "{ref:Press me@5}"} |
    Then call 4 failed
    And call 5's answer lists "Press me"
    And call 6 succeeded
    And the agent's page shows "Pressed 1"
    And the fixture site served "/pressed" 1 time

  # The press itself re-renders the button: a second click on the ref from before the first
  # (a retry, a model that reuses the ref) must not press the new one.
  @contract-agent-removed
  Scenario: A ref to a button its own press replaced is refused on the second click
    Given the agent under test is on "{site}/rerender"
    When the agent under test is called:
      | call | tool     | args                        |
      | 1    | snapshot | {}                          |
      | 2    | click    | {"ref": "{ref:Press me}"}   |
      | 3    | click    | {"ref": "{ref:Press me@1}"} |
    Then call 2 succeeded
    And call 3 failed
    And the agent's page shows "Rendered 2"
    And the agent's page shows "Pressed 1"
    And the fixture site served "/pressed" 1 time
