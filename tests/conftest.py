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
    cases of one file (an audit on two screens) run on different workers at once.

    The units are handed out in the order of the collection (`--no-loadscope-reorder`), which a
    worker sorts here: the units marked `xdist_first` (minutes of work each), then those holding a
    `slow` test, then the rest, each kind with its largest units first. A long unit started last
    leaves the other cores idle while it runs; started first, the short units fill in beside it."""
    units: dict[str, list[pytest.Item]] = {}
    for item in items:
        group = item.get_closest_marker("xdist_group")
        if group is None:
            unit = item.path.relative_to(config.rootpath).as_posix()
            if item.get_closest_marker("xdist_alone"):  # xdist reads a group name ending in "]" as none
                unit += "::" + item.name.replace("[", "(").replace("]", ")")
            item.add_marker(pytest.mark.xdist_group(unit))
        else:
            unit = group.args[0] if group.args else group.kwargs.get("name", "default")  # as xdist reads it
        units.setdefault(unit, []).append(item)
    if not hasattr(config, "workerinput"):
        return  # one process (-n 0) or the xdist controller: the order of the files stays as collected

    def rank(unit: list[pytest.Item]) -> tuple[int, int]:
        first = any(item.get_closest_marker("xdist_first") for item in unit)
        slow = any(item.get_closest_marker("slow") for item in unit)
        return (0 if first else 1 if slow else 2, -len(unit))

    items[:] = [item for unit in sorted(units.values(), key=rank) for item in unit]
