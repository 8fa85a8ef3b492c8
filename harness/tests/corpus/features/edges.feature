Feature: refs and numbers at their edges
  Scenario: x
    Given the agent under test is on "{site}/page"
    When the agent under test is called:
      | call | tool | args |
      | 99999999999999999999 | click | {"ref": "{ref:go@-1"} |
      | 0 | teleport | not json |
    Then call 18446744073709551616 answered within -5 ms
