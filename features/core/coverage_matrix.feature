@agent @contract-coverage-paths
Feature: The navigation design's coverage matrix: every navigation path that leaves a transient
  docs/design/navigation-transients.md#the-six-transient-paths: the seven ways a navigation can be in flight when the agent looks, which guard
  catches each, and (guards off) the failure it causes. On Chromium an observation of a tab
  whose navigation is in flight gets no answer until the commit and then fails: that is how the
  race shows on an existing tab; a new tab shows it as about:blank.

  Scenario: open_url creates a new tab on a slow site: the open_url guard waits for the commit
    Given the model plans:
      | round | tool     | args                                         |
      | 1     | open_url | {"url": "{site}/slow?delay=1500&title=Docs"} |
      | 2     | done     | {"summary": "opened the docs"}               |
    When the agent runs the task
    Then the task succeeds
    And the open_url guard resolved "committed"
    And tool call "open_url" in round 1 succeeded
    And round 2 observed the page titled "Docs"
    And no navigation listener is left registered

  Scenario: open_url creates a new tab on a slow site, guards off: the original race
    Given the open_url guard is off
    And the loop-top guard is off
    And the model plans:
      | round | tool     | args                                         |
      | 1     | open_url | {"url": "{site}/slow?delay=1500&title=Docs"} |
      | 2     | done     | {"summary": "opened the docs"}               |
    When the agent runs the task
    Then the task stops with "Page navigated to a restricted URL, agent stopped"
    And the task ran 2 rounds

  Scenario: open_url and focus_tab in the same round on a slow site: open_url already waited
    Given the agent starts on "{site}/page?title=Home"
    And the model plans:
      | round | tool      | args                                         |
      | 1     | open_url  | {"url": "{site}/slow?delay=1500&title=Docs"} |
      | 1     | focus_tab | {"tab": "@opened"}                           |
      | 2     | done      | {"summary": "read the docs"}                 |
    When the agent runs the task
    Then the task succeeds
    And the open_url guard resolved "committed"
    And the loop-top guard never waited
    And round 2 observed the page titled "Docs"

  Scenario: open_url and focus_tab in the same round on a slow site, guards off: the original race
    Given the agent starts on "{site}/page?title=Home"
    And the open_url guard is off
    And the loop-top guard is off
    And the model plans:
      | round | tool      | args                                         |
      | 1     | open_url  | {"url": "{site}/slow?delay=1500&title=Docs"} |
      | 1     | focus_tab | {"tab": "@opened"}                           |
      | 2     | done      | {"summary": "read the docs"}                 |
    When the agent runs the task
    Then the task stops with "Page navigated to a restricted URL, agent stopped"

  Scenario: A click starts a cross-document navigation slower than the quiet window: the loop top catches it
    Given the agent starts on "{site}/page?title=Home&go=/slow?delay=3000%26title=Next"
    And the model plans:
      | round | tool  | args                          |
      | 1     | click | {"selector": "#go"}           |
      | 2     | done  | {"summary": "followed link"}  |
    When the agent runs the task
    Then the task succeeds
    And the loop-top guard resolved "committed" in round 2
    And round 2 observed the page titled "Next"

  Scenario: A click starts a slow navigation, loop-top guard off: the next round looks at a page that is leaving
    Given the agent starts on "{site}/page?title=Home&go=/slow?delay=3000%26title=Next"
    And the loop-top guard is off
    And the model plans:
      | round | tool  | args                          |
      | 1     | click | {"selector": "#go"}           |
      | 2     | done  | {"summary": "followed link"}  |
    When the agent runs the task
    Then the task stops with "The page could not be observed, agent stopped"

  Scenario: Typing and Enter submit a form to a slow answer: the loop top catches it
    Given the agent starts on "{site}/form?title=Search&action=/submit?delay=3000%26title=Results"
    And the model plans:
      | round | tool | args                                                 |
      | 1     | type | {"selector": "#q", "text": "navguard", "submit": true} |
      | 2     | done | {"summary": "searched"}                              |
    When the agent runs the task
    Then the task succeeds
    And the loop-top guard resolved "committed" in round 2
    And round 2 observed the page titled "Results"

  Scenario: Typing and Enter submit a form to a slow answer, loop-top guard off
    Given the agent starts on "{site}/form?title=Search&action=/submit?delay=3000%26title=Results"
    And the loop-top guard is off
    And the model plans:
      | round | tool | args                                                 |
      | 1     | type | {"selector": "#q", "text": "navguard", "submit": true} |
      | 2     | done | {"summary": "searched"}                              |
    When the agent runs the task
    Then the task stops with "The page could not be observed, agent stopped"

  Scenario: The page's own script redirects it: only the loop top can catch it
    Given the agent starts on "{site}/js-redirect?title=Leaving&after=4000&to=/slow?delay=5000%26title=Arrived"
    And the model plans:
      | round | tool | args                   |
      | 1     | wait | {"ms": 5000}           |
      | 2     | done | {"summary": "arrived"} |
    When the agent runs the task
    Then the task succeeds
    And round 1 observed the page titled "Leaving"
    And the loop-top guard resolved "committed" in round 2
    And round 2 observed the page titled "Arrived"

  Scenario: A meta refresh moves the page: only the loop top can catch it
    Given the agent starts on "{site}/meta-refresh?title=Leaving&after=4&to=/slow?delay=5000%26title=Arrived"
    And the model plans:
      | round | tool | args                   |
      | 1     | wait | {"ms": 5000}           |
      | 2     | done | {"summary": "arrived"} |
    When the agent runs the task
    Then the task succeeds
    And the loop-top guard resolved "committed" in round 2
    And round 2 observed the page titled "Arrived"

  Scenario: The page's own script redirects it, loop-top guard off
    Given the agent starts on "{site}/js-redirect?title=Leaving&after=4000&to=/slow?delay=5000%26title=Arrived"
    And the loop-top guard is off
    And the model plans:
      | round | tool | args                   |
      | 1     | wait | {"ms": 5000}           |
      | 2     | done | {"summary": "arrived"} |
    When the agent runs the task
    Then the task stops with "The page could not be observed, agent stopped"

  Scenario: The user reloads the pinned tab between rounds: the loop top catches it
    Given the agent starts on "{site}/slow?delay=1500&title=Pinned"
    And before round 2 the user reloads the tab
    And the model plans:
      | round | tool | args                    |
      | 1     | wait | {"ms": 10}              |
      | 2     | done | {"summary": "reloaded"} |
    When the agent runs the task
    Then the task succeeds
    And the loop-top guard resolved "committed" in round 2
    And round 2 observed the page titled "Pinned"
    And the fixture site served "/slow" 2 times

  Scenario: The user reloads the pinned tab between rounds, loop-top guard off
    Given the agent starts on "{site}/slow?delay=1500&title=Pinned"
    And the loop-top guard is off
    And before round 2 the user reloads the tab
    And the model plans:
      | round | tool | args                    |
      | 1     | wait | {"ms": 10}              |
      | 2     | done | {"summary": "reloaded"} |
    When the agent runs the task
    Then the task stops with "The page could not be observed, agent stopped"

  # `bfcache=no` keeps the first page out of the browser's back/forward cache, so the way back
  # loads it anew, slowly. A held Web Lock did not: Chromium 156 restored the page now and then.
  Scenario: The user goes back on the pinned tab between rounds: the loop top catches it
    Given the agent starts on "{site}/slow?delay=1500&title=First&bfcache=no"
    And before round 3 the user goes back
    And the model plans:
      | round | tool     | args                                 |
      | 1     | navigate | {"url": "{site}/page?title=Second"}  |
      | 2     | wait     | {"ms": 10}                           |
      | 3     | done     | {"summary": "back again"}            |
    When the agent runs the task
    Then the task succeeds
    And round 2 observed the page titled "Second"
    And the loop-top guard resolved "committed" in round 3
    And round 3 observed the page titled "First"

  Scenario: focus_tab moves to a tab that is still loading: the loop top settles it
    Given the agent starts on "{site}/page?title=Home"
    And before round 2 the user opens "{site}/slow?delay=3000&title=Loading" in a new tab
    And the model plans:
      | round | tool      | args                     |
      | 1     | wait      | {"ms": 10}               |
      | 2     | focus_tab | {"tab": "@active"}       |
      | 3     | done      | {"summary": "looked"}    |
    When the agent runs the task
    Then the task succeeds
    And tool call "focus_tab" in round 2 succeeded
    And the loop-top guard resolved "committed" in round 3
    And round 3 observed the page titled "Loading"

  Scenario: focus_tab moves to a tab that is still loading, loop-top guard off: the original race
    Given the agent starts on "{site}/page?title=Home"
    And the loop-top guard is off
    And before round 2 the user opens "{site}/slow?delay=3000&title=Loading" in a new tab
    And the model plans:
      | round | tool      | args                     |
      | 1     | wait      | {"ms": 10}               |
      | 2     | focus_tab | {"tab": "@active"}       |
      | 3     | done      | {"summary": "looked"}    |
    When the agent runs the task
    Then the task stops with "Page navigated to a restricted URL, agent stopped"
