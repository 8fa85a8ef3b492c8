@conformance
Feature: Controls an agent cannot reach
  A control may be on the page and still out of reach: a cookie banner covers it, or the page
  has removed it since the agent looked. A click that lands on the banner instead, or on
  nothing, must not be reported as done: the model would believe the form was sent. The site's
  request log says whether the form really was.

  @contract-agent-covered
  Scenario: A click on a button a cookie banner covers fails as not-interactable and sends nothing
    Given the agent under test is on "{site}/overlay"
    When the agent under test is called:
      | call | tool     | args                     |
      | 1    | wait_for | {"text": "We use cookies."} |
      | 2    | snapshot | {}                       |
      | 3    | click    | {"ref": "{ref:Send}"}    |
    Then call 3 failed as "not-interactable"
    And the fixture site served "/submit" 0 times

  # The banner comes a while after load (whether before or after the first snapshot is the
  # machine's pace, and does not matter): the ref is still good, the button is not reachable.
  @contract-agent-covered
  Scenario: A banner that comes after load makes the click on the button it covers fail, not press the banner
    Given the agent under test is on "{site}/overlay?after=800"
    When the agent under test is called:
      | call | tool     | args                          |
      | 1    | snapshot | {}                            |
      | 2    | wait_for | {"text": "We use cookies."}   |
      | 3    | click    | {"ref": "{ref:Send@1}"}       |
    Then call 3 failed as "not-interactable"
    And the fixture site served "/submit" 0 times

  @contract-agent-covered
  Scenario: Once the banner is accepted, the same button sends the form
    Given the agent under test is on "{site}/overlay"
    When the agent under test is called:
      | call | tool     | args                              |
      | 1    | wait_for | {"text": "We use cookies."}       |
      | 2    | snapshot | {}                                |
      | 3    | click    | {"ref": "{ref:Accept cookies}"}   |
      | 4    | snapshot | {}                                |
      | 5    | click    | {"ref": "{ref:Send@4}"}           |
    Then call 2's answer shows "Accept cookies"
    And call 5 succeeded
    And call 4's answer does not list "Accept cookies"
    And the fixture site served "/submit" 1 time

  @contract-agent-removed
  Scenario: A ref to a button the page removed is refused, not reported as pressed
    Given the agent under test is on "{site}/overlay"
    When the agent under test is called:
      | call | tool     | args                                |
      | 1    | wait_for | {"text": "We use cookies."}         |
      | 2    | snapshot | {}                                  |
      | 3    | click    | {"ref": "{ref:Accept cookies}"}     |
      | 4    | click    | {"ref": "{ref:Accept cookies@2}"}   |
    Then call 3 succeeded
    And call 4 failed
