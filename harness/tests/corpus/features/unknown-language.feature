# language: xx
Feature: a language nobody speaks
  Scenario: x
    Given x
