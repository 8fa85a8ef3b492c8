@agent
Feature: The tools that change a page's controls: select_option, hover, drag, upload_file, fill_form
  Each answers with what the page holds after the action and its handlers ran, never with what
  was attempted: the option the control holds, what a hover brought into view, whether the drop
  target received the drop, the files an input holds, each field's value. Where the page did not
  take the action (it put the old value back, nobody received the drop), the call fails as not
  applied and says what the page holds instead.

  @contract-core-select
  Scenario: select_option chooses in a native select, and the page's own change handler ran
    Given the agent starts on "{site}/select"
    And the model plans:
      | round | tool          | args                                       |
      | 1     | select_option | {"selector": "#pick", "values": ["Two"]}   |
      | 2     | done          | {"summary": "picked", "expect": {"text": "Picked: two"}} |
    When the agent runs the task
    Then the task succeeds
    And tool call "select_option" in round 1 answered 'the control holds "Two" (two)'

  @contract-core-select
  Scenario: A select whose page puts the old value back fails as not applied, naming what it holds
    Given the agent starts on "{site}/select?revert=100"
    And the model plans:
      | round | tool          | args                                       |
      | 1     | select_option | {"selector": "#pick", "values": ["three"]} |
      | 2     | done          | {"summary": "tried"}                       |
    When the agent runs the task
    Then tool call "select_option" in round 1 failed with 'not applied: #pick holds "One" (one), not "three"'

  @contract-core-select
  Scenario: Options that come only once the select is opened are waited for
    Given the agent starts on "{site}/select?late=400"
    And the model plans:
      | round | tool          | args                                       |
      | 1     | select_option | {"selector": "#pick", "values": ["Three"]} |
      | 2     | done          | {"summary": "picked", "expect": {"text": "Picked: three"}} |
    When the agent runs the task
    Then the task succeeds
    And tool call "select_option" in round 1 answered 'the control holds "Three" (three)'

  @contract-core-select
  Scenario: An ARIA combobox is opened and its option clicked with the pointer, options that come late too
    Given the agent starts on "{site}/select?kind=combobox&late=300"
    And the model plans:
      | round | tool          | args                                       |
      | 1     | select_option | {"selector": "#pick", "values": ["Two"]}   |
      | 2     | done          | {"summary": "picked", "expect": {"text": "Picked: two"}} |
    When the agent runs the task
    Then the task succeeds
    And tool call "select_option" in round 1 answered 'the control holds "Two"'

  @contract-core-select
  Scenario: A combobox whose page puts the old value back fails as not applied
    Given the agent starts on "{site}/select?kind=combobox&revert=100"
    And the model plans:
      | round | tool          | args                                       |
      | 1     | select_option | {"selector": "#pick", "values": ["Two"]}   |
      | 2     | done          | {"summary": "tried"}                       |
    When the agent runs the task
    Then tool call "select_option" in round 1 failed with 'not applied: #pick holds "One", not "Two"'

  @contract-core-select
  Scenario: An option the control does not have, and a control that is no select, are named as such
    Given the agent starts on "{site}/form-full"
    And the model plans:
      | round | tool          | args                                        |
      | 1     | select_option | {"selector": "#color", "values": ["Pink"]}  |
      | 2     | select_option | {"selector": "#name", "values": ["Pink"]}   |
      | 3     | done          | {"summary": "tried"}                        |
    When the agent runs the task
    Then tool call "select_option" in round 1 failed with '#color has no option "Pink"; its options are "Red", "Green", "Blue"'
    And tool call "select_option" in round 2 failed with "#name is input, not a select, combobox or listbox"

  @contract-core-hover
  Scenario: hover opens a menu, says what came into view, and the menu stays open for the next click
    Given the agent starts on "{site}/hover-menu"
    And the model plans:
      | round | tool  | args                       |
      | 1     | hover | {"selector": "#menu"}      |
      | 2     | click | {"selector": "#settings"}  |
      | 3     | done  | {"summary": "opened", "expect": {"title": "Settings"}} |
    When the agent runs the task
    Then the task succeeds
    And tool call "hover" in round 1 answered 'came into view: a "Settings", a "Sign out"'

  @contract-core-drag
  Scenario Outline: drag drops an item on the zone, and the answer says the zone received it
    Given the agent starts on "{site}/drag?kind=<kind>"
    And the model plans:
      | round | tool | args                                   |
      | 1     | drag | {"from": "#item-a", "to": "#zone"}     |
      | 2     | done | {"summary": "dropped", "expect": {"text": "Dropped: A"}} |
    When the agent runs the task
    Then the task succeeds
    And tool call "drag" in round 1 answered 'onto #zone'
    And tool call "drag" in round 1 answered 'it reads "Dropped: A"'
    And the fixture site served "/pressed" 1 time

    Examples:
      | kind    |
      | html5   |
      | pointer |

  @contract-core-drag
  Scenario: A drag onto what takes no drop fails as not applied, and a drag onto itself is refused
    Given the agent starts on "{site}/drag?kind=html5"
    And the model plans:
      | round | tool | args                                     |
      | 1     | drag | {"from": "#item-a", "to": "#item-c"}     |
      | 2     | drag | {"from": "#item-a", "to": "#item-a"}     |
      | 3     | done | {"summary": "tried"}                     |
    When the agent runs the task
    Then tool call "drag" in round 1 failed with "not applied: #item-c received no drop"
    And tool call "drag" in round 2 failed with 'argument "to" must be another element than "from"'
    And the fixture site served "/pressed" 0 times

  @contract-core-upload
  Scenario: upload_file puts files of the allowed folder in the input, and refuses a path outside it
    Given the agent starts on "{site}/upload"
    And the model plans:
      | round | tool        | args                                               |
      | 1     | upload_file | {"selector": "#file", "paths": ["../../etc/passwd"]} |
      | 2     | upload_file | {"selector": "#file", "paths": ["report.csv"]}     |
      | 3     | done        | {"summary": "attached"}                            |
    When the agent runs the task
    Then the task succeeds
    And tool call "upload_file" in round 1 failed with "outside the folder this run allows"
    And tool call "upload_file" in round 2 answered "#file holds report.csv (19 bytes)"

  @contract-core-fill
  Scenario: fill_form gives each field its value, says what each holds, and the form posts them
    Given the agent starts on "{site}/form-full"
    And the model plans:
      | round | tool      | args |
      | 1     | fill_form | {"fields": [{"selector": "#name", "value": "Ada"}, {"selector": "#agree", "value": true}, {"selector": "#large", "value": true}, {"selector": "#color", "value": "Green"}, {"selector": "#note", "value": "two lines"}]} |
      | 2     | click     | {"selector": "#send"} |
      | 3     | extract   | {} |
      | 4     | done      | {"summary": "sent", "expect": {"title": "Submitted"}} |
    When the agent runs the task
    Then the task succeeds
    And tool call "fill_form" in round 1 answered '#name holds "Ada"; #agree is checked; #large is checked; #color holds "Green"'
    And tool call "extract" in round 3 answered "name Ada agree yes size large color green note two lines"

  @contract-core-fill
  Scenario: fill_form replaces what a field held, in a rich editor and in a framework's controlled input alike
    Given the agent starts on "{site}/editor?kind=controlled"
    And the model plans:
      | round | tool      | args                                                  |
      | 1     | type      | {"selector": "#name", "text": "Bob"}                  |
      | 2     | fill_form | {"fields": [{"selector": "#name", "value": "Ada"}]}   |
      | 3     | navigate  | {"url": "{site}/editor?kind=contenteditable"}         |
      | 4     | fill_form | {"fields": [{"selector": "#editor", "value": "Hello"}]} |
      | 5     | done      | {"summary": "typed", "expect": {"text": "Echo: Hello"}} |
    When the agent runs the task
    Then the task succeeds
    And tool call "fill_form" in round 2 answered '#name holds "Ada"'
    And tool call "fill_form" in round 4 answered '#editor holds "Hello"'
