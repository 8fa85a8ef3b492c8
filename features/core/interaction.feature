@agent
Feature: The tools that read the page and move its view: scroll, extract, screenshot
  The orchestrator's design names scroll, extract and screenshot among its executor's tools.
  Each answers with what the page holds after it ran, never with what was attempted: a scroll
  says where the page now is and what came into view, once what the scroll started (a feed's
  fetch of more items) has ended; extract reads the page's values as they are now; a screenshot
  is a picture of the page as it is.

  @contract-core-scroll
  Scenario: scroll brings a button below the fold into view, and the click on it presses it
    Given the agent starts on "{site}/offscreen?at=below"
    And the model plans:
      | round | tool   | args                  |
      | 1     | scroll | {"selector": "#far"}  |
      | 2     | click  | {"selector": "#far"}  |
      | 3     | done   | {"summary": "pressed", "expect": {"text": "Pressed 1"}} |
    When the agent runs the task
    Then the task succeeds
    And tool call "scroll" in round 1 answered "scrolled #far into view"
    And tool call "scroll" in round 1 answered 'came into view: button "Far"'
    And the fixture site served "/pressed" 1 time

  @contract-core-scroll
  Scenario: scroll to the end of a feed waits for the items it loads, and says they came into view
    Given the agent starts on "{site}/infinite?batch=10&delay=500"
    And the model plans:
      | round | tool   | args                                   |
      | 1     | scroll | {"by": "end"}                          |
      | 2     | done   | {"summary": "more", "expect": {"text": "Items: 20"}} |
    When the agent runs the task
    Then the task succeeds
    And tool call "scroll" in round 1 answered "scrolled the page down to its end"
    And tool call "scroll" in round 1 answered 'a "Item 11"'
    And the fixture site served "/data" 1 time

  @contract-core-scroll
  Scenario: scroll up at the top of the page says the page did not move
    Given the agent starts on "{site}/offscreen?at=below"
    And the model plans:
      | round | tool   | args                                  |
      | 1     | scroll | {"by": "page", "direction": "up"}     |
      | 2     | done   | {"summary": "stayed"}                 |
    When the agent runs the task
    Then the task succeeds
    And tool call "scroll" in round 1 answered "the page did not move: it is at 0 of"

  @contract-core-scroll
  Scenario: A button its container clips cannot be scrolled into view: not-interactable, and why
    Given the agent starts on "{site}/offscreen?at=clipped"
    And the model plans:
      | round | tool   | args                  |
      | 1     | scroll | {"selector": "#far"}  |
      | 2     | done   | {"summary": "gave up"} |
    When the agent runs the task
    Then tool call "scroll" in round 1 failed with "clipped by its container div#clip"

  @contract-core-extract
  Scenario: extract reads a select's options and the value the page holds, and named fields
    Given the agent starts on "{site}/form-full"
    And the model plans:
      | round | tool    | args                                                        |
      | 1     | type    | {"selector": "#name", "text": "Ada"}                         |
      | 2     | extract | {"selector": "#color"}                                       |
      | 2     | extract | {"fields": {"name": "#name", "agree": "#agree", "missing": "#nope"}} |
      | 3     | extract | {}                                                           |
      | 4     | done    | {"summary": "read"}                                          |
    When the agent runs the task
    Then the task succeeds
    And tool call "extract" in round 2 answered '"label":"Red","selected":true'
    And tool call "extract" in round 2 answered '"name":{"tag":"input","type":"text","value":"Ada"}'
    And tool call "extract" in round 2 answered '"checked":false'
    And tool call "extract" in round 2 answered '"missing":null'
    And tool call "extract" in round 3 answered '"title":"Form"'

  @contract-core-extract
  Scenario: extract never gives a password's value
    Given the agent starts on "{site}/login"
    And the model plans:
      | round | tool    | args                                            |
      | 1     | type    | {"selector": "#password", "text": "hunter2"}    |
      | 2     | extract | {"selector": "#password"}                       |
      | 3     | done    | {"summary": "read"}                             |
    When the agent runs the task
    Then the task succeeds
    And tool call "extract" in round 2 answered '"value":"[redacted]"'

  @contract-core-screenshot
  Scenario: screenshot takes the viewport, the whole page and one element as PNGs
    Given the agent starts on "{site}/offscreen?at=below"
    And the model plans:
      | round | tool       | args                     |
      | 1     | screenshot | {}                       |
      | 2     | screenshot | {"full_page": true}      |
      | 3     | screenshot | {"selector": "#far"}     |
      | 4     | done       | {"summary": "pictured"}  |
    When the agent runs the task
    Then the task succeeds
    And tool call "screenshot" in round 1 answered "took a picture of the viewport"
    And tool call "screenshot" in round 2 answered "took a picture of the whole page"
    And tool call "screenshot" in round 3 answered "took a picture of #far"

  @contract-core-screenshot
  Scenario: screenshot of an element that is gone is refused as a stale ref
    Given the agent starts on "{site}/counter"
    And the model plans:
      | round | tool       | args                     |
      | 1     | click      | {"selector": "#remove"}  |
      | 2     | screenshot | {"selector": "#inc"}     |
      | 3     | done       | {"summary": "tried"}     |
    When the agent runs the task
    Then tool call "screenshot" in round 2 failed with "#inc"
