"""Project-wide test configuration.

tests/fixtures/ holds submissions and check files that the tests feed to the grader, and
tests/courses/ whole courses (with their own grader/checks) that the tests build and grade;
they are data, never tests of this project, so pytest must not collect them.
"""

collect_ignore_glob = ["fixtures/*", "courses/*", "*/fixtures/*"]


import sys  # noqa: E402

import pytest  # noqa: E402


@pytest.fixture(autouse=True)
def _sys_path_restored():
    """No command may leave the process changed for the next test: the engine keeps no active
    course (each command loads its --root and hands it down) and never puts a course on sys.path;
    should a test do so, the path is put back."""
    saved = list(sys.path)
    yield
    if sys.path != saved:
        sys.path[:] = saved


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
