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
    """Commands run in-process (click's CliRunner) make their --root the active course; each test
    starts from, and leaves, the state it found. (Course plugins need nothing of the kind: each
    course's are kept apart, coursegen.plugin_loading.)"""
    from grader import courseroot

    saved = (list(sys.path), courseroot._active)
    yield
    if (list(sys.path), courseroot._active) != saved:
        sys.path[:] = saved[0]
        courseroot._active = saved[1]


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Under pytest-xdist (`--dist loadgroup`, set in pyproject.toml) one unit of work is one test
    file, so what a file sets up once (a course built, a batch graded, a warm sandbox, in its
    module-scoped fixtures) is set up once, on one worker. A test that must share its setup with
    other files names its group with `@pytest.mark.xdist_group(...)`; a long test whose setup is
    cheap or session-wide is marked `xdist_alone`: each of its cases is a unit of its own, so the
    cases of one file (an audit in four settings) run on different workers at once."""
    for item in items:
        if not any(True for _ in item.iter_markers("xdist_group")):
            unit = item.path.relative_to(config.rootpath).as_posix()
            if item.get_closest_marker("xdist_alone"):  # xdist reads a group name ending in "]" as none
                unit += "::" + item.name.replace("[", "(").replace("]", ")")
            item.add_marker(pytest.mark.xdist_group(unit))
