@conformance
Feature: Pages that are not plain pages: a print dialog, a PDF, a basic-auth challenge
  Some pages hand the browser something other than a document to show: a script that opens the
  print dialog (browser-use #3459: the click that prints never answered), a PDF shown where a
  page or a download was expected (Playwright MCP #430, #589), a server that asks for
  credentials with a basic-auth challenge (#540). A tool layer that waits for these as for a
  page waits for nothing, or hangs on a prompt no one answers: each call must answer, honestly,
  and the agent must go on. "Soon" is within 20 s for a page the browser shows (a PDF, the
  challenge's page): far above the 1 to 4 s these usually take here (12 s once, beside a whole
  CI run on 2 cores), below the 30 s after which a call that hangs fails anyway. An attachment
  is no page at all: 10 s, where the agents that do not wait for it answer within a second.

  @contract-agent-print
  Scenario: A click on a button that opens the print dialog answers, and the page goes on
    Given the agent under test is on "{site}/print"
    When the agent under test is called:
      | call | tool     | args                    |
      | 1    | snapshot | {}                      |
      | 2    | click    | {"ref": "{ref:Print}"}  |
      | 3    | navigate | {"url": "{site}/page?title=After"} |
    Then call 2 succeeded
    And call 3 answered with the page titled "After"

  @contract-agent-print
  Scenario: After the print dialog, the page's own script has gone on
    Given the agent under test is on "{site}/print"
    When the agent under test is called:
      | call | tool     | args                    |
      | 1    | snapshot | {}                      |
      | 2    | click    | {"ref": "{ref:Print}"}  |
    Then call 2 succeeded
    And the agent's page shows "Printed"

  @contract-agent-pdf
  Scenario: navigate to a PDF sent as an attachment answers soon and leaves the page where it was
    Given the agent under test is on "{site}/page?title=Home"
    When the agent under test is called:
      | call | tool     | args                    |
      | 1    | navigate | {"url": "{site}/pdf"}   |
      | 2    | snapshot | {}                      |
    Then call 1 answered within 10000 ms
    And call 2 answered with the page titled "Home"
    And the fixture site served "/pdf" 1 time

  @contract-agent-pdf
  Scenario: A PDF the browser shows is left with go_back, to the page before
    Given the agent under test is on "{site}/page?title=Home"
    When the agent under test is called:
      | call | tool     | args                              |
      | 1    | navigate | {"url": "{site}/pdf?inline=yes"}  |
      | 2    | go_back  | {}                                |
    Then call 1 answered within 20000 ms
    And call 2 answered with the page titled "Home"

  @contract-agent-basic-auth
  Scenario: A page that asks for credentials answers soon, is not shown as the private page, and the agent goes on
    Given the agent under test is on "{site}/page?title=Home"
    When the agent under test is called:
      | call | tool     | args                                 |
      | 1    | navigate | {"url": "{site}/auth"}               |
      | 2    | navigate | {"url": "{site}/page?title=After"}   |
    Then call 1 answered within 20000 ms
    And call 1's answer does not show "Private"
    And call 2 answered with the page titled "After"
