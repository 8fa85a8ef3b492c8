@conformance
Feature: Links within one document
  A link to an anchor of the page, or a navigate to one, moves the view and changes the URL's
  fragment, but the document stays: its refs stay good. A tool layer that treats every URL
  change as a new document refuses good refs, or waits for a load that never comes.

  @contract-agent-anchors
  Scenario: A link to an anchor of the same page keeps the page's refs good
    Given the agent under test is on "{site}/anchors"
    When the agent under test is called:
      | call | tool     | args                         |
      | 1    | snapshot | {}                           |
      | 2    | click    | {"ref": "{ref:to the form}"} |
      | 3    | click    | {"ref": "{ref:send@1}"}      |
    Then call 2 answered with the page titled "Anchors"
    And call 3 succeeded
    And the fixture site served "/submit" 1 time

  @contract-agent-anchors
  Scenario: Navigating to an anchor of the same page answers at once and keeps the page's refs good
    Given the agent under test is on "{site}/anchors"
    When the agent under test is called:
      | call | tool     | args                          |
      | 1    | snapshot | {}                            |
      | 2    | navigate | {"url": "{site}/anchors#f"}   |
      | 3    | click    | {"ref": "{ref:send@1}"}       |
    Then call 2 answered with the page titled "Anchors"
    And call 2 answered within 5000 ms
    And call 3 succeeded
    And the fixture site served "/submit" 1 time
    And the fixture site served "/anchors" 1 time
