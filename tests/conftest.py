"""Project-wide test configuration.

tests/fixtures/ holds submissions and check files that the tests feed to the grader, and
tests/courses/ whole courses (with their own grader/checks) that the tests build and grade;
they are data, never tests of this project, so pytest must not collect them.
"""

collect_ignore_glob = ["fixtures/*", "courses/*", "*/fixtures/*"]


import sys  # noqa: E402

import pytest  # noqa: E402


@pytest.fixture(autouse=True)
def _course_root_restored():
    """Commands run in-process (click's CliRunner) make their --root the active course and load its
    plugins; each test starts from, and leaves, the state it found."""
    from coursegen import plugin_loading
    from grader import courseroot

    saved = (list(sys.path), courseroot._active, plugin_loading._loaded)
    yield
    if (list(sys.path), courseroot._active) != saved[:2]:
        sys.path[:] = saved[0]
        courseroot._active = saved[1]
    if plugin_loading._loaded != saved[2]:
        plugin_loading._loaded = None  # reload on next use
