"""Project-wide test configuration.

tests/fixtures/ holds submissions and check files that the tests feed to the grader;
they are data, never tests of this project, so pytest must not collect them.
"""
collect_ignore_glob = ["fixtures/*"]
