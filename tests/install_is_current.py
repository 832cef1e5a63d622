"""Whether tests/run may skip `pip install -e '.[EXTRA]'`: exit 0 when the checkout in the current
folder is installed (editable, from this folder), what it installed is what its pyproject.toml
declares now (extras included), and every requirement of EXTRA (the argument, default `test`, and
the extras it names) is met; else 1, and tests/run installs. Run with `python -I`, so that a
*.egg-info in the checkout is not taken for the installed distribution."""

from __future__ import annotations

import json
import sys
import tomllib
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement


def extras_installed(project: dict, extra: str) -> set[str]:
    """`extra` and every extra it names through `coursegen[...]`, and "" (the plain dependencies)."""
    found, todo = {""}, [extra]
    while todo:
        name = todo.pop()
        if name in found:
            continue
        found.add(name)
        for line in project.get("optional-dependencies", {}).get(name, []):
            requirement = Requirement(line)
            if requirement.name == project["name"]:
                todo.extend(requirement.extras)
    return found


def with_extra(line: str, extra: str) -> str:
    """A requirement of an extra as it appears in the installed metadata."""
    requirement = Requirement(line)
    marker = f"({requirement.marker}) and " if requirement.marker else ""
    requirement.marker = None
    return f'{requirement}; {marker}extra == "{extra}"'


def met(requirement: Requirement, extras: set[str], project_name: str) -> bool:
    if requirement.marker and not any(requirement.marker.evaluate({"extra": e}) for e in extras):
        return True  # not asked for by these extras
    if requirement.name == project_name:
        return True  # the extras it names are checked as their own lines
    try:
        return requirement.specifier.contains(metadata.version(requirement.name), prereleases=True)
    except metadata.PackageNotFoundError:
        return False


def is_current(root: Path, dist: metadata.Distribution, extra: str = "test") -> bool:
    try:
        source = json.loads(dist.read_text("direct_url.json") or "{}")
    except ValueError:
        return False
    if source.get("url") != root.as_uri() or not source.get("dir_info", {}).get("editable"):
        return False  # another checkout's install, or not an editable one
    project = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    declared = list(project["dependencies"]) + [
        with_extra(line, name) for name, lines in project.get("optional-dependencies", {}).items() for line in lines
    ]
    wanted = {str(Requirement(line)): Requirement(line) for line in declared}
    if set(wanted) != {str(Requirement(line)) for line in dist.requires or []}:
        return False  # pyproject.toml changed since the install
    extras = extras_installed(project, extra)
    return all(met(requirement, extras, project["name"]) for requirement in wanted.values())


def main() -> int:
    try:
        dist = metadata.distribution("coursegen")
    except metadata.PackageNotFoundError:
        return 1
    return 0 if is_current(Path.cwd().resolve(), dist, *sys.argv[1:2]) else 1


if __name__ == "__main__":
    sys.exit(main())
