@conformance
Feature: Pages that never go quiet on the network
  A page that polls its server (news, a chat, a dashboard) or keeps a stream open is never idle
  on the network. A tool layer that waits for network idle after a navigate or a click stalls
  there until its own deadline: the agent sits still while the page is ready. The wait after an
  action must be bounded by what the action started, never by the page's endless polling.

  @contract-agent-polling
  Scenario: navigate to a page that polls forever answers once the page has loaded
    Given the agent under test is on "{site}/page?title=Home"
    When the agent under test is called:
      | call | tool     | args                                    |
      | 1    | navigate | {"url": "{site}/poll?title=Busy"}       |
      | 2    | snapshot | {}                                      |
    Then call 1 answered with the page titled "Busy"
    And call 1 answered within 20000 ms
    And call 2's answer lists "Press"

  @contract-agent-polling
  Scenario: A click on a page that polls forever answers soon with what it did
    Given the agent under test is on "{site}/poll?title=Busy"
    When the agent under test is called:
      | call | tool     | args                    |
      | 1    | snapshot | {}                      |
      | 2    | click    | {"ref": "{ref:Press}"}  |
      | 3    | wait_for | {"text": "Pressed"}     |
    Then call 2 succeeded
    And call 2 answered within 20000 ms
    And call 3 succeeded
