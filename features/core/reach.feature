@agent
Feature: The agent reaches every element it must act on, and its answers read back what the page holds
  The look gives refs to elements inside shadow roots at any depth (closed ones too: the page
  watch keeps them as the page attaches them), to rich editors and to the widgets that say their
  role. A target outside the viewport is scrolled into view before the pointer goes to it; one
  that moves is pressed where it is when the pointer comes, never what took its place. Typing is
  read back from the field once its handlers ran.

  @contract-core-shadow
  Scenario Outline: A button inside nested shadow roots has a ref, and the click on it presses it
    Given the agent starts on "{site}/shadow?depth=3&mode=<mode>"
    And the model plans:
      | round | tool  | args                      |
      | 1     | click | {"ref": "{ref:#deep}"}    |
      | 2     | done  | {"summary": "pressed", "expect": {"text": "Pressed 1"}} |
    When the agent runs the task
    Then the task succeeds
    And the fixture site served "/pressed" 1 time

    Examples:
      | mode   |
      | open   |
      | closed |

  @contract-core-offscreen
  Scenario Outline: A button outside the viewport is scrolled into view and pressed once
    Given the agent starts on "{site}/offscreen?at=<at>"
    And the model plans:
      | round | tool  | args                  |
      | 1     | click | {"selector": "#far"}  |
      | 2     | done  | {"summary": "pressed", "expect": {"text": "Pressed 1"}} |
    When the agent runs the task
    Then the task succeeds
    And the fixture site served "/pressed" 1 time

    Examples:
      | at       |
      | below    |
      | right    |
      | straddle |

  @contract-core-shift
  Scenario: A button a banner pushes down is pressed where it is, never the ad that took its place
    Given the agent starts on "{site}/shift?after=600"
    And the model plans:
      | round | tool  | args                  |
      | 1     | click | {"selector": "#b"}    |
      | 2     | done  | {"summary": "bought", "expect": {"text": "Bought"}} |
    When the agent runs the task
    Then the task succeeds
    And the fixture site served "/bought" 1 time
    And the fixture site served "/ad" 0 times

  @contract-core-shift
  Scenario: A button the page moves as the pointer comes onto it is pressed where it went, and the answer says so
    Given the agent starts on "{site}/shift?on=pointer"
    And the model plans:
      | round | tool  | args                  |
      | 1     | click | {"selector": "#b"}    |
      | 2     | done  | {"summary": "bought", "expect": {"text": "Bought"}} |
    When the agent runs the task
    Then the task succeeds
    And tool call "click" in round 1 answered 'pressed 2 times: the page moved it as it was pressed, and the press before landed on button#ad "Ad"'
    And the fixture site served "/bought" 1 time
    And the fixture site served "/ad" 0 times

  @contract-core-editor
  Scenario: Typing into a rich editor goes through its input events, and the answer reads the editor back
    Given the agent starts on "{site}/editor?kind=contenteditable"
    And the model plans:
      | round | tool | args                                        |
      | 1     | type | {"ref": "{ref:#editor}", "text": "Hello"}   |
      | 2     | done | {"summary": "typed", "expect": {"text": "Echo: Hello"}} |
    When the agent runs the task
    Then the task succeeds
    And tool call "type" in round 1 answered 'holds "Hello"'

  @contract-core-editor
  Scenario: Typing into a framework's controlled input holds after its render, and says so
    Given the agent starts on "{site}/editor?kind=controlled"
    And the model plans:
      | round | tool | args                                   |
      | 1     | type | {"selector": "#name", "text": "Ada"}   |
      | 2     | done | {"summary": "typed", "expect": {"text": "Echo: Ada"}} |
    When the agent runs the task
    Then the task succeeds
    And tool call "type" in round 1 answered '#name holds "Ada"'

  @contract-core-nested-frames
  Scenario Outline: A button in frames inside frames, across origins or not, has a ref and is pressed
    Given the agent starts on "{site}/nested-frames?depth=3&cross=<cross>"
    And the model plans:
      | round | tool  | args                  |
      | 1     | click | {"ref": "{ref:#b}"}   |
      | 2     | done  | {"summary": "pressed"} |
    When the agent runs the task
    Then the task succeeds
    And the fixture site served "/pressed" 1 time

    Examples:
      | cross |
      | yes   |
      | no    |
