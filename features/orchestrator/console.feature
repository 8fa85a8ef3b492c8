@orchestrator
Feature: The console: the person in the loop sees what waits for them, and answers it
  `navguard serve` prints the console's token URL. Opened in a browser, the console lists the
  tasks, and for each one that waits for the person: the action, why it waits, the page it is
  on and its latest screenshot, with two answers. The answer goes through the same API as any
  client's, with the console's session and its CSRF token, and the audit names the console.

  @contract-console-confirm
  Scenario: The console shows a high-risk click with its reason and page, and Approve lets it run
    Given the orchestrator serves
    And a task waits for the user to confirm a click on "#buy" of "{site}/shop"
    When the user opens the console
    Then the page's title is "navguard console"
    And the console shows "Waiting for you"
    And the console shows "Why: it submits a form that posts to {site}/order"
    And the console shows "{site}/shop"
    And the console shows the page's latest screenshot
    When the user clicks ".approve"
    Then the task's click was approved from the console
    And the task's click is handed out, confirmed

  @contract-console-confirm
  Scenario: Deny in the console drops the click
    Given the orchestrator serves
    And a task waits for the user to confirm a click on "#buy" of "{site}/shop"
    When the user opens the console
    Then the console shows "Waiting for you"
    When the user clicks ".deny"
    Then the task's click was denied from the console
    And the task's click is never handed out

  @contract-console-permission
  Scenario: The console asks for a site the agent may not act on yet, and Allow grants it
    Given the orchestrator serves, asking for site permissions
    And a task waits for the user to allow the site of "{site}/page" for a click on "#go"
    When the user opens the console
    Then the console shows "a site you have not allowed the agent to act on"
    And the console shows the page's latest screenshot
    When the user clicks ".allow"
    Then the site of "{site}/page" was allowed from the console
    And the task's click is handed out

  @contract-console-permission
  Scenario: Refuse in the console keeps the agent off the site
    Given the orchestrator serves, asking for site permissions
    And a task waits for the user to allow the site of "{site}/page" for a click on "#go"
    When the user opens the console
    Then the console shows "Allow {site}"
    When the user clicks ".refuse"
    Then the site of "{site}/page" was refused from the console
    And the task's click is never handed out
