@agent
Feature: The settle helper on its own
  wait_for_url_settle(tab, expected origin, timeout): five outcomes, no listener left behind,
  and tabs settling at the same time do not see each other's events.

  @contract-settle-committed @contract-no-listener-leak
  Scenario: A slow new tab commits on the expected origin
    When a new tab is opened on "{site}/slow?delay=1000&title=Slow" and settled for "{site}"
    Then the settle outcome is "committed"
    And the tab's URL is "{site}/slow?delay=1000&title=Slow"
    And no navigation listener is left registered

  @contract-settle-origin-mismatch @contract-no-listener-leak
  Scenario: A redirect commits on another origin
    When a new tab is opened on "{site}/redirect?to={other}/page" and settled for "{site}"
    Then the settle outcome is "origin-mismatch"
    And no navigation listener is left registered

  @contract-settle-timeout @contract-no-listener-leak
  Scenario: A response that never comes times out
    Given the settle timeout is 1000 ms
    When a new tab is opened on "{site}/never" and settled for "{site}"
    Then the settle outcome is "timeout"
    And no navigation listener is left registered

  @contract-settle-tab-gone @contract-no-listener-leak
  Scenario: A tab that is already closed is gone
    When a new tab is created on "{site}/never"
    And the user closes the tab
    And the tab is settled for "{site}"
    Then the settle outcome is "tab-gone"
    And no navigation listener is left registered

  @contract-settle-committed
  Scenario: A tab that already committed settles at once
    Given a tab is open on "{site}/page?title=Done"
    When the tab is settled for "{site}"
    Then the settle outcome is "committed"

  @contract-concurrent-settle @contract-no-listener-leak
  Scenario: Three tabs settle at the same time, each on its own events
    Given the settle timeout is 4000 ms
    When these tabs are opened and settled at once:
      | url                             | origin  |
      | {site}/slow?delay=1500          | {site}  |
      | {other}/redirect?to={site}/page | {other} |
      | {site}/never                    | {site}  |
    Then the settle outcomes are "committed, origin-mismatch, timeout"
    And no navigation listener is left registered
