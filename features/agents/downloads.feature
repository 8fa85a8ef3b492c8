@conformance
Feature: Downloads
  A link or a URL that answers with an attachment starts a download: the browser saves a file
  and the page stays where it was. A tool layer that waits for that navigation to commit waits
  for nothing (or loses its connection and resets the session): the call must answer soon, and
  the page and its refs must still be there.

  @contract-agent-downloads
  Scenario: navigate to a download answers soon and leaves the page where it was
    Given the agent under test is on "{site}/page?title=Home"
    When the agent under test is called:
      | call | tool     | args                                        |
      | 1    | navigate | {"url": "{site}/download?name=report.csv"}  |
      | 2    | snapshot | {}                                          |
    Then call 1 answered within 5000 ms
    And call 2 answered with the page titled "Home"
    And the fixture site served "/download" 1 time

  @contract-agent-downloads
  Scenario: A click that downloads leaves the page and its refs good for the next click
    Given the agent under test is on "{site}/page?title=Home&go=/download%3Fname%3Dreport.csv"
    When the agent under test is called:
      | call | tool     | args                  |
      | 1    | snapshot | {}                    |
      | 2    | click    | {"ref": "{ref:go}"}   |
      | 3    | click    | {"ref": "{ref:go@1}"} |
      | 4    | snapshot | {}                    |
    Then call 2 answered within 5000 ms
    And call 3 succeeded
    And call 4 answered with the page titled "Home"
    And the fixture site served "/download" 2 times
