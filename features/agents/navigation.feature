@conformance
Feature: A browser agent's tool layer while pages navigate
  The neutral tools of the agent-conformance profile, against whichever agent the run names
  (`--agent`; navguard's core by default). Each answer must show the page as it is once the
  call is done: never the page that was leaving, never a page that is not there yet. An
  honest failure is acceptable where the scenario says so; a success must be true.

  @contract-agent-transient
  Scenario: navigate to a slow page answers with that page
    Given the agent under test is on "{site}/page?title=Home"
    When the agent under test is called:
      | call | tool     | args                                          |
      | 1    | navigate | {"url": "{site}/slow?delay=1500&title=Slow"}  |
    Then call 1 either failed or answered with the page titled "Slow"
    And call 1 answered within 20000 ms
    And the fixture site served "/slow" 1 time

  @contract-agent-transient
  Scenario: A click on a link to a slow page answers with the new page
    Given the agent under test is on "{site}/page?title=Home&go=/slow?delay=1500%26title=Next"
    When the agent under test is called:
      | call | tool     | args                 |
      | 1    | snapshot | {}                   |
      | 2    | click    | {"ref": "{ref:go}"}  |
      | 3    | snapshot | {}                   |
    Then call 1's answer lists "go"
    And call 2 either failed or answered with the page titled "Next"
    And call 3 answered with the page titled "Next"
    And the fixture site served "/slow" 1 time

  @contract-agent-stale-ref
  Scenario: A ref from the last document is refused on the next one of the same shape
    Given the agent under test is on "{site}/page?title=One&go=/page?title=Two"
    When the agent under test is called:
      | call | tool     | args                   |
      | 1    | snapshot | {}                     |
      | 2    | click    | {"ref": "{ref:go}"}    |
      | 3    | snapshot | {}                     |
      | 4    | click    | {"ref": "{ref:go@1}"}  |
    Then call 1's answer lists "go"
    And call 3 answered with the page titled "Two"
    And call 3's answer does not list "One"
    And call 4 failed
    And call 4 failed as "stale-ref"
    And the fixture site served "/page" 2 times

  @contract-agent-transient @serial
  Scenario: A snapshot after the page's own script redirect shows where it went
    Serial: the redirect is a script timer 100 ms after load, and Firefox slows the timers of
    tabs that are not in front (scenarios beside it put theirs in front).
    Given the agent under test is on "{site}/page?title=Home"
    When the agent under test is called:
      | call | tool     | args                                                                    |
      | 1    | navigate | {"url": "{site}/js-redirect?title=Here&after=100&to=/page?title=There"} |
      | 2    | snapshot | {}                                                                      |
    Then call 2 answered with the page titled "There"
    And call 2 answered with the page at "{site}/page?title=There"

  # The model's second of thought comes after the user's navigation began, and the new page
  # answers two seconds after that: the call is made while the tab is still on its way, never
  # before the agent could have heard that it is (a race no scenario could hold).
  @contract-agent-transient
  Scenario: The user navigates the agent's tab between two calls: the next snapshot shows it
    Given the agent under test is on "{site}/page?title=Home"
    And before call 2 the user navigates the tab to "{site}/slow?delay=3000&title=Elsewhere"
    And before call 2 1000 ms pass
    When the agent under test is called:
      | call | tool     | args |
      | 1    | snapshot | {}   |
      | 2    | snapshot | {}   |
    Then call 1 answered with the page titled "Home"
    And call 2 answered with the page titled "Elsewhere"

  @contract-agent-go-back
  Scenario: go back answers with the page before
    Given the agent under test is on "{site}/page?title=First&go=/page?title=Second"
    When the agent under test is called:
      | call | tool     | args                 |
      | 1    | snapshot | {}                   |
      | 2    | click    | {"ref": "{ref:go}"}  |
      | 3    | go_back  | {}                   |
      | 4    | snapshot | {}                   |
    Then call 3 succeeded
    And call 4 answered with the page titled "First"
