@conformance
Feature: Single-page apps
  An in-app link changes the URL at once (history.pushState) and the content only after a
  request. The document stays: its refs stay good, though the URL changed. An answer after the
  click shows the new URL; the new content comes when its request does.

  @contract-agent-spa
  Scenario: An in-app link changes the URL, and the page's refs stay good for the next click
    Given the agent under test is on "{site}/spa?title=App&delay=300"
    When the agent under test is called:
      | call | tool     | args                   |
      | 1    | snapshot | {}                     |
      | 2    | click    | {"ref": "{ref:One}"}   |
      | 3    | wait_for | {"text": "Page one"}   |
      | 4    | click    | {"ref": "{ref:Two@1}"} |
      | 5    | wait_for | {"text": "Page two"}   |
    Then call 4 succeeded
    And call 5 succeeded
    And the fixture site served "/spa" 1 time

  @contract-agent-spa
  Scenario: The answer to an in-app link's click is on the new route
    Given the agent under test is on "{site}/spa?title=App&delay=300"
    When the agent under test is called:
      | call | tool     | args                 |
      | 1    | snapshot | {}                   |
      | 2    | click    | {"ref": "{ref:One}"} |
      | 3    | wait_for | {"text": "Page one"} |
      | 4    | snapshot | {}                   |
    Then call 2 answered with the page at "{site}/spa?title=App&delay=300&page=one"
    And call 4 answered with the page at "{site}/spa?title=App&delay=300&page=one"
    And call 4's answer shows "Page one"
