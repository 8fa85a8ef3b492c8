@conformance
Feature: A click that waits for a request, then navigates
  A click's handler often asks the server first and moves the page only once it has answered
  (a Continue button that saves, then goes on). The navigation starts when the request ends,
  which may be long after the click: a tool layer that watches for a navigation only in a short
  window after the click (Chrome DevTools MCP about 100 ms, Playwright MCP about 500 ms) answers
  with the page that is about to leave. The wait after an action must be bounded by what the
  action itself started (its own request, then the navigation that request led to), never by a
  page's endless polling, and by a deadline of the agent's own.

  @contract-agent-late-navigation
  Scenario: A click whose handler fetches, then navigates, answers with the page it went to
    Given the agent under test is on "{site}/fetch-then-go"
    When the agent under test is called:
      | call | tool     | args                      |
      | 1    | snapshot | {}                        |
      | 2    | click    | {"ref": "{ref:Continue}"} |
    Then call 1's answer lists "Continue"
    And call 2 answered with the page titled "Next"
    And the fixture site served "/data" 1 time
    And the fixture site served "/page" 1 time

  @contract-agent-late-navigation
  Scenario: A click whose request outlasts any fixed window answers with the new page, whose links work
    The request takes 2.5 s, well past any window a tool layer watches for a navigation in.
    Given the agent under test is on "{site}/fetch-then-go?delay=2500&to=/page?title=Next%26go=/page?title=Last"
    When the agent under test is called:
      | call | tool     | args                      |
      | 1    | snapshot | {}                        |
      | 2    | click    | {"ref": "{ref:Continue}"} |
      | 3    | snapshot | {}                        |
      | 4    | click    | {"ref": "{ref:go}"}       |
      | 5    | snapshot | {}                        |
    Then call 2 answered with the page titled "Next"
    And call 2 answered within 20000 ms
    And call 3 answered with the page titled "Next"
    And call 5 answered with the page titled "Last"
    And the fixture site served "/data" 1 time

  @contract-agent-late-navigation
  Scenario: A click that fetches, then navigates to a page that polls forever, answers with that page soon
    The new page never goes quiet on the network: a wait for the network to be idle would last
    until the agent's own deadline; the wait must end once the navigation has settled.
    Given the agent under test is on "{site}/fetch-then-go?to=/poll?title=Busy"
    When the agent under test is called:
      | call | tool     | args                      |
      | 1    | snapshot | {}                        |
      | 2    | click    | {"ref": "{ref:Continue}"} |
      | 3    | snapshot | {}                        |
    Then call 2 answered with the page titled "Busy"
    And call 2 answered within 5000 ms
    And call 3's answer lists "Press"

  @contract-agent-late-navigation
  Scenario: A click whose request the site holds is answered by the agent's own deadline, and the page moves on once it is let through
    The site holds the click's request until the scenario releases it: the navigation cannot
    have started when the click is answered, so the answer is the page that stayed (or an
    honest failure), and it comes by the agent's own deadline, not the call's.
    Given the agent under test is on "{site}/fetch-then-go?gate=save"
    When the agent under test is called:
      | call | tool     | args                      |
      | 1    | snapshot | {}                        |
      | 2    | click    | {"ref": "{ref:Continue}"} |
    Then call 2 either failed or answered with the page titled "Fetch then go"
    And call 2 answered within 20000 ms
    When the site releases "save"
    And the agent under test is called:
      | call | tool     | args               |
      | 3    | wait_for | {"text": "Next"}   |
      | 4    | snapshot | {}                 |
    Then call 3 succeeded
    And call 4 answered with the page titled "Next"
    And the fixture site served "/gate" 1 time
