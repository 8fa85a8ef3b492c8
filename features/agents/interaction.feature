@conformance
Feature: Interaction beyond click and type
  The field's trackers are full of tool layers that report an interaction done when the page did
  not take it: a select reported chosen while the site's script put the old value back, a click
  "done" on an element outside the viewport, a drag that completes with nothing dropped, a hover
  menu gone by the next call, elements inside shadow roots that no snapshot shows. Each scenario
  judges by what the page holds (read by the harness in the browser) and the fixture site's log,
  never by what the agent says it did.

  @contract-agent-select
  Scenario: A select whose page puts the old value back is not reported as chosen
    Given the agent under test is on "{site}/select?revert=100"
    When the agent under test is called:
      | call | tool          | args                                          |
      | 1    | snapshot      | {}                                            |
      | 2    | select_option | {"ref": "{ref:Pick}", "values": ["Three"]}    |
    Then call 2 failed as "not-applied"
    And the agent's page shows "Picked: one"

  @contract-agent-select
  Scenario: Options that come only once the select is opened are chosen all the same
    Given the agent under test is on "{site}/select?late=400"
    When the agent under test is called:
      | call | tool          | args                                          |
      | 1    | snapshot      | {}                                            |
      | 2    | select_option | {"ref": "{ref:Pick}", "values": ["Three"]}    |
    Then call 2 succeeded
    And the agent's page shows "Picked: three"

  @contract-agent-select
  Scenario: An ARIA combobox's option is chosen, and the page's handler saw it
    Given the agent under test is on "{site}/select?kind=combobox"
    When the agent under test is called:
      | call | tool          | args                                          |
      | 1    | snapshot      | {}                                            |
      | 2    | select_option | {"ref": "{ref:Pick}", "values": ["Two"]}      |
    Then call 2 succeeded
    And the agent's page shows "Picked: two"

  @contract-agent-offscreen
  Scenario: A button straddling the bottom of the viewport is pressed, once
    Given the agent under test is on "{site}/offscreen?at=straddle"
    When the agent under test is called:
      | call | tool     | args                  |
      | 1    | snapshot | {}                    |
      | 2    | click    | {"ref": "{ref:Far}"}  |
    Then call 2 succeeded
    And the fixture site served "/pressed" 1 time

  @contract-agent-shadow
  Scenario: A button inside nested shadow roots is listed, and pressed
    Given the agent under test is on "{site}/shadow?depth=3"
    When the agent under test is called:
      | call | tool     | args                   |
      | 1    | snapshot | {}                     |
      | 2    | click    | {"ref": "{ref:Deep}"}  |
    Then call 1's answer lists "Deep"
    And the fixture site served "/pressed" 1 time

  @contract-agent-nested-frames
  Scenario: A button in frames inside frames from alternating origins is listed, and pressed
    Given the agent under test is on "{site}/nested-frames?depth=3&cross=yes"
    When the agent under test is called:
      | call | tool     | args                    |
      | 1    | snapshot | {}                      |
      | 2    | click    | {"ref": "{ref:Press}"}  |
    Then call 1's answer lists "Press"
    And the fixture site served "/pressed" 1 time

  @contract-agent-hover
  Scenario: A hover menu stays open for the click on its item
    Given the agent under test is on "{site}/hover-menu"
    When the agent under test is called:
      | call | tool     | args                       |
      | 1    | snapshot | {}                         |
      | 2    | hover    | {"ref": "{ref:Menu}"}      |
      | 3    | snapshot | {}                         |
      | 4    | click    | {"ref": "{ref:Settings}"}  |
    Then call 2 succeeded
    And call 3's answer lists "Settings"
    And call 4 answered with the page titled "Settings"

  @contract-agent-drag
  Scenario Outline: A drag (<kind>) onto the drop zone is received there
    Given the agent under test is on "{site}/drag?kind=<kind>"
    When the agent under test is called:
      | call | tool     | args                                          |
      | 1    | snapshot | {}                                            |
      | 2    | drag     | {"from": "{ref:A}", "to": "{ref:Drop here}"}  |
    Then call 2 succeeded
    And the agent's page shows "Dropped: A"
    And the fixture site served "/pressed" 1 time

    Examples:
      | kind    |
      | html5   |
      | pointer |

  @contract-agent-drag
  Scenario: A drag onto what takes no drop is not reported as dropped
    Given the agent under test is on "{site}/drag?kind=html5"
    When the agent under test is called:
      | call | tool     | args                                  |
      | 1    | snapshot | {}                                    |
      | 2    | drag     | {"from": "{ref:A}", "to": "{ref:C}"}  |
    Then call 2 failed as "not-applied"
    And the fixture site served "/pressed" 0 times

  @contract-agent-upload
  Scenario: A file is put in the file input, and the input holds it
    Given the agent under test is on "{site}/upload"
    When the agent under test is called:
      | call | tool        | args                                                      |
      | 1    | snapshot    | {}                                                        |
      | 2    | upload_file | {"ref": "{ref:Attach}", "paths": ["{files}/report.csv"]}  |
    Then call 2 succeeded
    And call 2's answer shows "report.csv"

  @contract-agent-form
  Scenario: A form filled in one call posts every field as the page held it
    Given the agent under test is on "{site}/form-full"
    When the agent under test is called:
      | call | tool      | args |
      | 1    | snapshot  | {}   |
      | 2    | fill_form | {"fields": [{"ref": "{ref:Name}", "value": "Ada"}, {"ref": "{ref:Agree}", "value": true}, {"ref": "{ref:Color}", "value": "Blue"}]} |
      | 3    | click     | {"ref": "{ref:Send}"} |
    Then call 2 succeeded
    And call 3 answered with the page titled "Submitted"
    And the agent's page shows "Ada"
    And the agent's page shows "blue"
    And the fixture site served "/submit" 1 time

  @contract-agent-controlled-input
  Scenario: Text typed into a framework's controlled input is what the framework holds
    Given the agent under test is on "{site}/editor?kind=controlled"
    When the agent under test is called:
      | call | tool     | args                                    |
      | 1    | snapshot | {}                                      |
      | 2    | type     | {"ref": "{ref:Name}", "text": "Ada"}    |
    Then call 2 succeeded
    And the agent's page shows "Echo: Ada"

  @contract-agent-infinite-scroll
  Scenario: Scrolled to its end, a feed's next items are there when the scroll answers
    Given the agent under test is on "{site}/infinite?batch=10&delay=300"
    When the agent under test is called:
      | call | tool     | args            |
      | 1    | snapshot | {}              |
      | 2    | scroll   | {"by": "end"}   |
      | 3    | snapshot | {}              |
    Then call 2 succeeded
    And call 3's answer lists "Item 20"

  @contract-agent-screenshot
  Scenario: A screenshot answers a picture
    Given the agent under test is on "{site}/offscreen?at=below"
    When the agent under test is called:
      | call | tool       | args  |
      | 1    | screenshot | {}    |
    Then call 1 answered with a picture

  @contract-agent-select
  Scenario Outline: A native select's option is chosen by its <by>, and the page's handler saw it
    Given the agent under test is on "{site}/select"
    When the agent under test is called:
      | call | tool          | args                                          |
      | 1    | snapshot      | {}                                            |
      | 2    | select_option | {"ref": "{ref:Pick}", "values": ["<value>"]}  |
    Then call 2 succeeded
    And the agent's page shows "Picked: two"

    Examples:
      | by    | value |
      | label | Two   |
      | value | two   |

  @contract-agent-select
  Scenario: A combobox whose page puts the old value back is not reported as chosen
    Given the agent under test is on "{site}/select?kind=combobox&revert=100"
    When the agent under test is called:
      | call | tool          | args                                          |
      | 1    | snapshot      | {}                                            |
      | 2    | select_option | {"ref": "{ref:Pick}", "values": ["Three"]}    |
    Then call 2 failed as "not-applied"
    And the agent's page shows "Picked: one"

  @contract-agent-offscreen
  Scenario Outline: A button <where> is pressed, once
    Given the agent under test is on "{site}/offscreen?at=<at>"
    When the agent under test is called:
      | call | tool     | args                  |
      | 1    | snapshot | {}                    |
      | 2    | click    | {"ref": "{ref:Far}"}  |
    Then call 2 succeeded
    And the agent's page shows "Pressed 1"
    And the fixture site served "/pressed" 1 time

    Examples:
      | where                          | at    |
      | far below the fold             | below |
      | far to the right of the window | right |

  @contract-agent-offscreen
  Scenario: A button its container clips out of sight is not reported pressed
    Given the agent under test is on "{site}/offscreen?at=clipped"
    When the agent under test is called:
      | call | tool     | args                  |
      | 1    | snapshot | {}                    |
      | 2    | click    | {"ref": "{ref:Far}"}  |
    Then call 2 failed as "not-interactable"
    And the fixture site served "/pressed" 0 times

  @contract-agent-offscreen
  Scenario: A button scrolled into view by its ref is then pressed, once
    Given the agent under test is on "{site}/offscreen?at=below"
    When the agent under test is called:
      | call | tool     | args                  |
      | 1    | snapshot | {}                    |
      | 2    | scroll   | {"ref": "{ref:Far}"}  |
      | 3    | click    | {"ref": "{ref:Far}"}  |
    Then call 2 succeeded
    And call 3 succeeded
    And the fixture site served "/pressed" 1 time

  @contract-agent-shadow
  Scenario: A button inside one open shadow root is listed, and pressed
    Given the agent under test is on "{site}/shadow?depth=1"
    When the agent under test is called:
      | call | tool     | args                   |
      | 1    | snapshot | {}                     |
      | 2    | click    | {"ref": "{ref:Deep}"}  |
    Then call 1's answer lists "Deep"
    And the agent's page shows "Pressed 1"
    And the fixture site served "/pressed" 1 time

  @contract-agent-nested-frames
  Scenario: A button in a frame inside a frame of the same origin is listed, and pressed
    Given the agent under test is on "{site}/nested-frames?depth=2"
    When the agent under test is called:
      | call | tool     | args                    |
      | 1    | snapshot | {}                      |
      | 2    | click    | {"ref": "{ref:Press}"}  |
    Then call 1's answer lists "Press"
    And the fixture site served "/pressed" 1 time

  @contract-agent-hover
  Scenario: A hover menu that closes a moment after the pointer leaves is still open for its item
    Given the agent under test is on "{site}/hover-menu?close=300"
    When the agent under test is called:
      | call | tool     | args                       |
      | 1    | snapshot | {}                         |
      | 2    | hover    | {"ref": "{ref:Menu}"}      |
      | 3    | snapshot | {}                         |
      | 4    | click    | {"ref": "{ref:Sign out}"}  |
    Then call 2 succeeded
    And call 3's answer lists "Sign out"
    And call 4 succeeded

  @contract-agent-drag
  Scenario: A pointer-driven drag onto what takes no drop is not reported as dropped
    Given the agent under test is on "{site}/drag?kind=pointer"
    When the agent under test is called:
      | call | tool     | args                                  |
      | 1    | snapshot | {}                                    |
      | 2    | drag     | {"from": "{ref:A}", "to": "{ref:C}"}  |
    Then call 2 failed as "not-applied"
    And the fixture site served "/pressed" 0 times

  @contract-agent-upload
  Scenario: A file put in the file input is the file the form posts
    Given the agent under test is on "{site}/upload"
    When the agent under test is called:
      | call | tool        | args                                                     |
      | 1    | snapshot    | {}                                                       |
      | 2    | upload_file | {"ref": "{ref:Attach}", "paths": ["{files}/photo.png"]}  |
      | 3    | click       | {"ref": "{ref:Send}"}                                    |
    Then call 2 succeeded
    And call 3 answered with the page titled "Submitted"
    And the agent's page shows "photo.png"
    And the fixture site served "/submit" 1 time

  @contract-agent-form
  Scenario: A form's radio and text area filled in one call are what it posts
    Given the agent under test is on "{site}/form-full"
    When the agent under test is called:
      | call | tool      | args |
      | 1    | snapshot  | {}   |
      | 2    | fill_form | {"fields": [{"ref": "{ref:Large}", "value": true}, {"ref": "{ref:Note}", "value": "Leave at the door"}]} |
      | 3    | click     | {"ref": "{ref:Send}"} |
    Then call 2 succeeded
    And call 3 answered with the page titled "Submitted"
    And the agent's page shows "large"
    And the agent's page shows "Leave at the door"

  @contract-agent-form
  Scenario: A field filled twice posts the second value only
    Given the agent under test is on "{site}/form-full"
    When the agent under test is called:
      | call | tool      | args |
      | 1    | snapshot  | {}   |
      | 2    | fill_form | {"fields": [{"ref": "{ref:Name}", "value": "Ada"}]}   |
      | 3    | fill_form | {"fields": [{"ref": "{ref:Name}", "value": "Grace"}]} |
      | 4    | click     | {"ref": "{ref:Send}"} |
    Then call 3 succeeded
    And call 4 answered with the page titled "Submitted"
    And the agent's page shows "Grace"
    And the agent's page does not show "Ada"

  @contract-agent-controlled-input
  Scenario: A controlled input filled by fill_form is what the framework holds
    Given the agent under test is on "{site}/editor?kind=controlled"
    When the agent under test is called:
      | call | tool      | args                                                 |
      | 1    | snapshot  | {}                                                   |
      | 2    | fill_form | {"fields": [{"ref": "{ref:Name}", "value": "Ada"}]}  |
    Then call 2 succeeded
    And the agent's page shows "Echo: Ada"

  @contract-agent-rich-editor
  Scenario: Text typed into a rich editor is what the editor's page holds
    Given the agent under test is on "{site}/editor?kind=contenteditable"
    When the agent under test is called:
      | call | tool     | args                                     |
      | 1    | snapshot | {}                                       |
      | 2    | type     | {"ref": "{ref:Editor}", "text": "Hello"} |
    Then call 2 succeeded
    And the agent's page shows "Echo: Hello"

  @contract-agent-rich-editor
  Scenario: A rich editor filled by fill_form is what the editor's page holds
    Given the agent under test is on "{site}/editor?kind=contenteditable"
    When the agent under test is called:
      | call | tool      | args                                                    |
      | 1    | snapshot  | {}                                                      |
      | 2    | fill_form | {"fields": [{"ref": "{ref:Editor}", "value": "Hello"}]} |
    Then call 2 succeeded
    And the agent's page shows "Echo: Hello"

  @contract-agent-shift
  Scenario: A button a late banner pushes down is pressed, never the ad that took its place
    Given the agent under test is on "{site}/shift?after=300"
    And before call 2 600 ms pass
    When the agent under test is called:
      | call | tool     | args                  |
      | 1    | snapshot | {}                    |
      | 2    | click    | {"ref": "{ref:Buy}"}  |
    Then call 2 succeeded
    And the fixture site served "/bought" 1 time
    And the fixture site served "/ad" 0 times

  @contract-agent-shift
  Scenario: A button the page moves as the pointer comes onto it is pressed, never the ad that took its place
    Given the agent under test is on "{site}/shift?on=pointer"
    When the agent under test is called:
      | call | tool     | args                  |
      | 1    | snapshot | {}                    |
      | 2    | click    | {"ref": "{ref:Buy}"}  |
    Then the fixture site served "/ad" 0 times
    And call 2 succeeded
    And the fixture site served "/bought" 1 time

  @contract-agent-infinite-scroll
  Scenario: Scrolled to its end twice, the feed holds its third batch
    Given the agent under test is on "{site}/infinite?batch=10&delay=300"
    When the agent under test is called:
      | call | tool     | args            |
      | 1    | snapshot | {}              |
      | 2    | scroll   | {"by": "end"}   |
      | 3    | scroll   | {"by": "end"}   |
      | 4    | snapshot | {}              |
    Then call 3 succeeded
    And call 4's answer lists "Item 30"
    And the agent's page shows "Items: 30"

  @contract-agent-screenshot
  Scenario Outline: A screenshot of <what> answers a picture
    Given the agent under test is on "{site}/offscreen?at=below"
    When the agent under test is called:
      | call | tool       | args     |
      | 1    | snapshot   | {}       |
      | 2    | screenshot | <args>   |
    Then call 2 answered with a picture

    Examples:
      | what          | args                   |
      | one element   | {"ref": "{ref:Far}"}   |
      | the whole page | {"full_page": true}   |

  @contract-agent-extract
  Scenario: extract reads what the page put back, not what was last asked for
    Given the agent under test is on "{site}/select?revert=100"
    When the agent under test is called:
      | call | tool          | args                                          |
      | 1    | snapshot      | {}                                            |
      | 2    | select_option | {"ref": "{ref:Pick}", "values": ["Three"]}    |
      | 3    | extract       | {"fields": {"picked": "#picked"}}             |
    Then call 2 failed
    And call 3's answer shows "Picked: one"
    And call 3's answer does not show "Picked: three"
