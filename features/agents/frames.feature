@conformance
Feature: Controls inside a frame from another origin
  A payment form, a login widget or a consent dialog often lives in an iframe served from
  another origin. A script in the top document cannot read that frame, so a tool layer whose
  snapshot is such a script shows the frame as an empty box: the model cannot see the frame's
  controls, or sees them and gets refs that no click can reach. The frame here is on the second
  origin; the site's request log says whether its form was really sent.

  # The snapshot alone, for agents that have no click (the hazard as its reports tell it).
  @contract-agent-cross-origin-frame
  Scenario: A snapshot lists the controls of a frame from another origin beside the page's own
    Given the agent under test is on "{site}/frame?src={other}/page?title=Inner&title=Outer"
    When the agent under test is called:
      | call | tool     | args |
      | 1    | snapshot | {}   |
    Then call 1's answer lists "go"
    And call 1's answer lists "send"

  @contract-agent-cross-origin-frame
  Scenario: A click on a button of a frame from another origin sends the frame's form
    Given the agent under test is on "{site}/frame?src={other}/page?title=Inner&title=Outer"
    When the agent under test is called:
      | call | tool     | args                  |
      | 1    | snapshot | {}                    |
      | 2    | click    | {"ref": "{ref:send}"} |
      | 3    | snapshot | {}                    |
    Then call 1's answer lists "send"
    And call 2 succeeded
    And call 3 answered with the page titled "Outer"
    And the fixture site served "/submit" 1 time

  @contract-agent-cross-origin-frame
  Scenario: Typing with Enter into a field of a frame from another origin submits the frame's form
    Given the agent under test is on "{site}/frame?src={other}/form?label=Search&title=Outer"
    When the agent under test is called:
      | call | tool     | args                                                   |
      | 1    | snapshot | {}                                                     |
      | 2    | type     | {"ref": "{ref:Search}", "text": "ada", "submit": true} |
      | 3    | snapshot | {}                                                     |
    Then call 2 succeeded
    And call 3 answered with the page titled "Outer"
    And the fixture site served "/submit" 1 time

  # The top document's link comes before the frame, and the frame has a link of the same name:
  # the ref the snapshot gives the first must press the top document's link, not the frame's.
  @contract-agent-cross-origin-frame
  Scenario: The page's own link next to a frame from another origin still leads where it says
    Given the agent under test is on "{site}/frame?src={other}/page?title=Inner&title=Outer"
    When the agent under test is called:
      | call | tool     | args                |
      | 1    | snapshot | {}                  |
      | 2    | click    | {"ref": "{ref:go}"} |
      | 3    | snapshot | {}                  |
    Then call 1's answer lists "send"
    And call 3 answered with the page titled "Next"

  # The reload replaces the page and the frame in it: the frame's old document, and its refs,
  # are gone, whether the click comes while the reload is under way or after it.
  @contract-agent-cross-origin-frame
  Scenario: After the user reloads the page, a ref taken inside its frame is stale and sends nothing
    Given the agent under test is on "{site}/frame?src={other}/page?title=Inner&title=Outer"
    And before call 2 the user reloads the tab
    When the agent under test is called:
      | call | tool     | args                    |
      | 1    | snapshot | {}                      |
      | 2    | click    | {"ref": "{ref:send@1}"} |
    Then call 2 failed as "stale-ref"
    And the fixture site served "/submit" 0 times
