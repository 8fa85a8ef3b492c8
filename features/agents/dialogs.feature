@conformance
Feature: A browser agent's tool layer while a page has a dialog open
  An alert, a confirm or a page's question whether to leave blocks the page until someone
  answers it. The agent must tell of it (a call made then fails as "dialog", or its answer
  shows the dialog open), answer it when asked (`handle_dialog`), and never report a call as
  done on a page the dialog kept from changing. The dialogs are waited for by the browser's
  own event, and judged by the page the harness reads in the browser and the fixture site's
  request log, not by the agent's own words. A model thinks for a second or more between what
  a page does and its next call: the scenarios give the agent that second after the dialog
  opened, so what is judged is how it handles a dialog it has had time to hear of, never which
  of two processes heard the browser's event first (a race no scenario could hold).

  @contract-agent-dialog
  Scenario: An alert that opens after load is reported, answered, and the page is there again
    Given the agent under test is on "{site}/dialog?kind=alert&after=300"
    And before call 1 the page has opened a dialog
    And before call 1 1000 ms pass
    When the agent under test is called:
      | call | tool          | args             |
      | 1    | snapshot      | {}               |
      | 2    | handle_dialog | {"accept": true} |
      | 3    | snapshot      | {}               |
    Then call 1 reported a dialog
    And call 2 succeeded
    And call 3 answered with the page titled "Dialog"
    And call 3's answer lists "go"
    And the agent's page shows "closed"

  @contract-agent-dialog
  Scenario: A confirm dismissed leaves the page with the page's own answer
    Given the agent under test is on "{site}/dialog?kind=confirm&after=300&title=Ask"
    And before call 1 the page has opened a dialog
    And before call 1 1000 ms pass
    When the agent under test is called:
      | call | tool          | args              |
      | 1    | handle_dialog | {"accept": false} |
      | 2    | snapshot      | {}                |
    Then call 1 succeeded
    And call 2 answered with the page titled "Ask"
    And the agent's page shows "dismissed"

  @contract-agent-dialog
  Scenario: navigate while an alert is open is never reported done on the page that stayed
    An agent may tell of the dialog and stay (the page is blocked), or close the alert and go
    (both browsers do that for a navigation): then its answer shows the new page. An answer
    that tells of the dialog says the page stayed: the site must not have served the next one.
    Given the agent under test is on "{site}/dialog?kind=alert&after=300"
    And before call 1 the page has opened a dialog
    And before call 1 1000 ms pass
    When the agent under test is called:
      | call | tool     | args                              |
      | 1    | navigate | {"url": "{site}/page?title=Next"} |
    Then call 1 either reported a dialog or answered with the page titled "Next"
    And if call 1 reported a dialog, the fixture site served "/page" 0 times

  @contract-agent-dialog
  Scenario: A click on a link of a page that asks before it is left: the agent answers, then is on the new page
    The page asks whether to leave (beforeunload) once it has had the user's input: the
    agent's own click is that input. Until the question is answered the page stays, and the
    click's answer must tell of the question. An agent that answers it on its own, or keeps it
    from its model, may throw away what the user entered: not acceptable here.
    Given the agent under test is on "{site}/dialog?kind=beforeunload&title=Form"
    When the agent under test is called:
      | call | tool          | args                |
      | 1    | snapshot      | {}                  |
      | 2    | click         | {"ref": "{ref:go}"} |
      | 3    | handle_dialog | {"accept": true}    |
      | 4    | snapshot      | {}                  |
    Then call 2 reported a dialog
    And call 3 succeeded
    And call 4 answered with the page titled "Next"
    And the fixture site served "/page" 1 time

  @contract-agent-dialog
  Scenario: navigate away from a page that asks before it is left, answered no: the agent stays
    A key pressed on the page is the user's input that makes it ask.
    Given the agent under test is on "{site}/dialog?kind=beforeunload&title=Form"
    When the agent under test is called:
      | call | tool          | args                              |
      | 1    | press_key     | {"key": "Space"}                  |
      | 2    | navigate      | {"url": "{site}/page?title=Next"} |
      | 3    | handle_dialog | {"accept": false}                 |
      | 4    | snapshot      | {}                                |
    Then call 2 reported a dialog
    And call 3 succeeded
    And call 4 answered with the page titled "Form"
    And the fixture site served "/page" 0 times
