@conformance
Feature: A file chooser
  A click on a file input opens the browser's file chooser. No agent's tools answer it here, and
  it must not wedge what comes after: the page can still be looked at, clicked and left.

  @contract-agent-file-chooser
  Scenario: After a click opens the file chooser, the page can still be looked at and its form sent
    Given the agent under test is on "{site}/upload"
    When the agent under test is called:
      | call | tool     | args                    |
      | 1    | snapshot | {}                      |
      | 2    | click    | {"ref": "{ref:Attach}"} |
      | 3    | snapshot | {}                      |
      | 4    | click    | {"ref": "{ref:Send@3}"} |
    Then call 3 answered with the page titled "Upload"
    And call 4 succeeded
    And the fixture site served "/submit" 1 time

  @contract-agent-file-chooser
  Scenario: After a click opens the file chooser, the agent can go elsewhere
    Given the agent under test is on "{site}/upload"
    When the agent under test is called:
      | call | tool     | args                                  |
      | 1    | snapshot | {}                                    |
      | 2    | click    | {"ref": "{ref:Attach}"}               |
      | 3    | navigate | {"url": "{site}/page?title=Away"}     |
    Then call 3 answered with the page titled "Away"
