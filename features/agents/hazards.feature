@conformance
Feature: More hazards of a browser agent's tool layer
  Pages that never finish loading a part of themselves, links that lead nowhere, redirects to
  another origin, forms that answer slowly, tabs the page opens. As in navigation.feature: an
  answer shows the page as it is once the call is done, or the call fails honestly.

  @contract-agent-no-commit
  Scenario: A click on a link answered 204 leaves the page where it is, and the agent says so soon
    Given the agent under test is on "{site}/page?title=Home&go=/status?code=204"
    When the agent under test is called:
      | call | tool     | args                |
      | 1    | snapshot | {}                  |
      | 2    | click    | {"ref": "{ref:go}"} |
      | 3    | snapshot | {}                  |
    Then call 2 either failed or answered with the page titled "Home"
    And call 2 answered within 4000 ms
    And call 3 answered with the page titled "Home"
    And the fixture site served "/status" 1 time

  @contract-agent-no-commit
  Scenario: navigate to a URL answered 204 leaves the page where it is
    Given the agent under test is on "{site}/page?title=Home"
    When the agent under test is called:
      | call | tool     | args                                 |
      | 1    | navigate | {"url": "{site}/status?code=204"}    |
      | 2    | snapshot | {}                                   |
    Then call 1 either failed or answered with the page titled "Home"
    And call 1 answered within 4000 ms
    And call 2 answered with the page titled "Home"

  @contract-agent-frames
  Scenario: A page whose iframe never loads is answered without waiting for the frame
    Given the agent under test is on "{site}/page?title=Home"
    When the agent under test is called:
      | call | tool     | args                                                  |
      | 1    | navigate | {"url": "{site}/frame?src=/never&title=Framed"}       |
    Then call 1 either failed or answered with the page titled "Framed"
    And call 1 answered within 8000 ms

  @contract-agent-frames
  Scenario: A page whose iframe keeps navigating is answered, and its links work
    Given the agent under test is on "{site}/frame?src=/js-redirect?after=200%26to=/js-redirect?after=200%2526to=/slow?delay=3000&title=Busy"
    When the agent under test is called:
      | call | tool     | args                |
      | 1    | snapshot | {}                  |
      | 2    | click    | {"ref": "{ref:go}"} |
      | 3    | snapshot | {}                  |
    Then call 1 answered with the page titled "Busy"
    And call 3 answered with the page titled "Next"
    And call 1 answered within 8000 ms

  @contract-agent-transient
  Scenario: A server redirect to another origin answers with the page it landed on, or fails
    Given the agent under test is on "{site}/page?title=Home"
    When the agent under test is called:
      | call | tool     | args                                                       |
      | 1    | navigate | {"url": "{site}/redirect?to={other}/page?title=Away"}      |
    Then call 1 either failed or answered with the page titled "Away"
    And the fixture site served "/redirect" 1 time

  @contract-agent-transient
  Scenario: Typing with Enter submits a form to a slow answer: the answer shows the result
    Given the agent under test is on "{site}/login?next=/slow?delay=1500%26title=Signed in"
    When the agent under test is called:
      | call | tool     | args                                                      |
      | 1    | snapshot | {}                                                        |
      | 2    | type     | {"ref": "{ref:User@1}", "text": "ada", "submit": true}    |
      | 3    | snapshot | {}                                                        |
    Then call 2 either failed or answered with the page titled "Signed in"
    And call 3 answered with the page titled "Signed in"
    And the fixture site served "/session" 1 time

  @contract-agent-transient @serial
  Scenario: A meta refresh moves the page at once: the next snapshot shows where it went
    Given the agent under test is on "{site}/page?title=Home"
    When the agent under test is called:
      | call | tool     | args                                                                              |
      | 1    | navigate | {"url": "{site}/meta-refresh?title=Refreshing&after=0&to=/page?title=Refreshed"} |
      | 2    | snapshot | {}                                                                                |
    Then call 2 answered with the page titled "Refreshed"

  @contract-agent-transient
  Scenario: The user reloads the agent's tab between two calls: the ref from before is stale
    Given the agent under test is on "{site}/page?title=Home&go=/page?title=Next"
    And before call 2 the user reloads the tab
    When the agent under test is called:
      | call | tool     | args                 |
      | 1    | snapshot | {}                   |
      | 2    | click    | {"ref": "{ref:go@1}"} |
    Then call 2 failed as "stale-ref"
    And the fixture site served "/page" 2 times

  # The tab exists in the browser from the click on: a model that lists the tabs at once must
  # see it, though its first page is still loading.
  @contract-agent-tabs
  Scenario: A tab the page opens is listed at once, while its first page still loads, and the agent can turn to it
    Given the agent under test is on "{site}/page?title=Home&blank=/slow?delay=1000%26title=Opened"
    When the agent under test is called:
      | call | tool       | args                     |
      | 1    | snapshot   | {}                       |
      | 2    | click      | {"ref": "{ref:new tab}"} |
      | 3    | wait_for   | {"text": "Home"}         |
      | 4    | list_tabs  | {}                       |
      | 5    | select_tab | {"index": 2}             |
      | 6    | snapshot   | {}                       |
    Then call 4's answer lists "Home"
    And call 6 answered with the page titled "Opened"

  # The same, after the model's think time: the opened tab's page has loaded by then.
  @contract-agent-tabs
  Scenario: A tab the page opens can be turned to once its page has loaded
    Given the agent under test is on "{site}/page?title=Home&blank=/slow?delay=300%26title=Opened"
    And before call 3 2000 ms pass
    When the agent under test is called:
      | call | tool       | args                     |
      | 1    | snapshot   | {}                       |
      | 2    | click      | {"ref": "{ref:new tab}"} |
      | 3    | list_tabs  | {}                       |
      | 4    | select_tab | {"index": 2}             |
      | 5    | snapshot   | {}                       |
    Then call 3's answer lists "Opened"
    And call 5 answered with the page titled "Opened"

  @contract-agent-tabs
  Scenario: new_tab opens a slow page and answers with it
    Given the agent under test is on "{site}/page?title=Home"
    When the agent under test is called:
      | call | tool    | args                                          |
      | 1    | new_tab | {"url": "{site}/slow?delay=1500&title=Slow"}  |
      | 2    | snapshot | {}                                           |
    Then call 1 either failed or answered with the page titled "Slow"
    And call 2 answered with the page titled "Slow"

  # A page may open a tab by itself, with no call of the agent's to answer for it: as it loads
  # (a login that opens its provider), or long after, while the model thinks (a chat window, a
  # report). The browser has the tab either way; so must the agent's list of tabs.
  @contract-agent-tabs
  Scenario: A tab the page opens by script as it loads is listed and can be turned to
    Given the agent under test is on "{site}/popup?title=Opener&to=/page%3Ftitle%3DOpened"
    And before call 1 the page has opened a tab
    When the agent under test is called:
      | call | tool       | args         |
      | 1    | list_tabs  | {}           |
      | 2    | select_tab | {"index": 2} |
      | 3    | snapshot   | {}           |
    Then call 1's answer lists "Opened"
    And call 3 answered with the page titled "Opened"

  @contract-agent-tabs
  Scenario: A tab the page opens by script long after it loaded is listed and can be turned to
    Given the agent under test is on "{site}/popup?title=Opener&after=1500&to=/page%3Ftitle%3DLater"
    And before call 2 the page has opened a tab
    When the agent under test is called:
      | call | tool       | args         |
      | 1    | snapshot   | {}           |
      | 2    | list_tabs  | {}           |
      | 3    | select_tab | {"index": 2} |
      | 4    | snapshot   | {}           |
    Then call 1 answered with the page titled "Opener"
    And call 2's answer lists "Later"
    And call 4 answered with the page titled "Later"
