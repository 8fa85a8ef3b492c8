@conformance
Feature: Going back to a page the browser keeps in its back/forward cache
  A page the user leaves may be kept whole in the browser's back/forward cache: going back shows
  that very document again, restored, with no request to the server and no load event (both
  browsers restore `/cached` under WebDriver BiDi; its `#shown` says so). An agent that waits
  for a load after go_back waits for nothing; one that judges refs by a load may keep a ref of
  the page it left, or refuse those of the page it came back to. The site's request log says
  whether the page was fetched again.

  @contract-agent-back-forward-cache
  Scenario: go_back to a page restored from the cache answers soon with that page
    Given the agent under test is on "{site}/cached?title=One&go=/page?title=Two"
    When the agent under test is called:
      | call | tool     | args                |
      | 1    | snapshot | {}                  |
      | 2    | click    | {"ref": "{ref:go}"} |
      | 3    | go_back  | {}                  |
      | 4    | snapshot | {}                  |
    Then call 2 answered with the page titled "Two"
    And call 3 succeeded
    And call 3 answered within 4000 ms
    And call 4 answered with the page titled "One"
    And the agent's page shows "Shown: restored 1"
    And the fixture site served "/cached" 1 time

  @contract-agent-back-forward-cache
  Scenario: After going back to a restored page, a new snapshot's refs work
    Given the agent under test is on "{site}/cached?title=One&go=/page?title=Two"
    When the agent under test is called:
      | call | tool     | args                  |
      | 1    | snapshot | {}                    |
      | 2    | click    | {"ref": "{ref:go}"}   |
      | 3    | go_back  | {}                    |
      | 4    | snapshot | {}                    |
      | 5    | click    | {"ref": "{ref:go@4}"} |
      | 6    | snapshot | {}                    |
    Then call 4 answered with the page titled "One"
    And call 5 succeeded
    And call 6 answered with the page titled "Two"
    And the fixture site served "/cached" 1 time
    And the fixture site served "/page" 2 times

  @contract-agent-back-forward-cache
  Scenario: After going back, a ref of the page that was left is refused on the restored page
    Given the agent under test is on "{site}/cached?title=One&go=/cached?title=Two%26go=/page?title=Three"
    When the agent under test is called:
      | call | tool     | args                  |
      | 1    | snapshot | {}                    |
      | 2    | click    | {"ref": "{ref:go}"}   |
      | 3    | snapshot | {}                    |
      | 4    | go_back  | {}                    |
      | 5    | click    | {"ref": "{ref:go@3}"} |
      | 6    | snapshot | {}                    |
    Then call 3 answered with the page titled "Two"
    And call 5 failed as "stale-ref"
    And call 6 answered with the page titled "One"
    And the fixture site served "/cached" 2 times
    And the fixture site served "/page" 0 times

  # The page that comes back is the very document the ref was taken in, and its element is
  # still in it: the ref names what it named, and the click does what the model meant.
  @contract-agent-back-forward-cache
  Scenario: A ref taken on the page before it was left acts on that page once it is restored
    Given the agent under test is on "{site}/cached?title=One&go=/page?title=Two"
    When the agent under test is called:
      | call | tool     | args                  |
      | 1    | snapshot | {}                    |
      | 2    | click    | {"ref": "{ref:go}"}   |
      | 3    | go_back  | {}                    |
      | 4    | click    | {"ref": "{ref:go@1}"} |
      | 5    | snapshot | {}                    |
    Then call 3 succeeded
    And call 4 succeeded
    And call 5 answered with the page titled "Two"
    And the fixture site served "/cached" 1 time
    And the fixture site served "/page" 2 times
