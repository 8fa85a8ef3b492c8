@conformance
Feature: Going back to a page the browser keeps in its back/forward cache
  A page the user leaves may be kept whole in the browser's back/forward cache: going back shows
  that very document again, restored, with no request to the server and no load event (both
  browsers restore `/cached` under WebDriver BiDi; its `#shown` says so, and Firefox does not
  even say the navigation committed). An agent that waits for a load after go_back waits for
  nothing; one that judges refs by loads may keep the refs of the page it left, or refuse those
  of the page it came back to, though it is the document they were taken in. The site's request
  log says whether a page was fetched again. The answers are judged by their URL: the page's
  title is the same either way.

  @contract-agent-back-forward-cache
  Scenario: go_back to a page restored from the cache answers soon with that page
    Given the agent under test is on "{site}/cached?title=One&go=/page?title=Two"
    When the agent under test is called:
      | call | tool     | args                |
      | 1    | snapshot | {}                  |
      | 2    | click    | {"ref": "{ref:go}"} |
      | 3    | snapshot | {}                  |
      | 4    | go_back  | {}                  |
      | 5    | snapshot | {}                  |
    Then call 3 answered with the page at "{site}/page?title=Two"
    And call 4 succeeded
    And call 4 answered within 4000 ms
    And call 5 answered with the page at "{site}/cached?title=One&go=/page?title=Two"
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
    Then call 4 answered with the page at "{site}/cached?title=One&go=/page?title=Two"
    And call 5 succeeded
    And call 6 answered with the page at "{site}/page?title=Two"
    And the fixture site served "/cached" 1 time
    And the fixture site served "/page" 2 times

  # Both pages are /cached and both links are named "go": an agent that finds a ref's element by
  # its place or its name clicks the restored page's link and fetches the later page again.
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
    Then call 3 answered with the page at "{site}/cached?title=Two&go=/page?title=Three"
    And call 5 failed as "stale-ref"
    And call 6 answered with the page at "{site}/cached?title=One&go=/cached?title=Two%26go=/page?title=Three"
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
    And call 5 answered with the page at "{site}/page?title=Two"
    And the fixture site served "/cached" 1 time
    And the fixture site served "/page" 2 times
