Feature: an outline without examples, a rule without scenarios
  Rule: r
  Scenario Outline: <a>
    Given the agent under test is on "<a>"
  Rule:
