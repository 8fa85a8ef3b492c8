Feature: a doc string and a table that never end
  Scenario: x
    When the agent under test is called:
      | call | tool | args
      | 1 | navigate 
    Then """
  never closed
