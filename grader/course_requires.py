"""What a course needs at run time besides the engine: `requires:` in content/course.yaml.

    requires: ["torch>=2.2"]          # pip requirement strings; the engine itself needs none of them

The engine reads the list (validated by coursegen.schema) to decide what the sandbox's warm
worker imports before it forks children (`preload_modules`: torch only for a course that requires
it), what an export installs (Gradescope's setup.sh, the Classroom workflow, the packages'
pyproject.toml) and what the notebooks and the student guide tell students to install.

An exported grading package carries no content/: its copy of the list is `exercises/requires.json`
(written by the export), read here the same way. Only the standard library and PyYAML are used:
this runs first thing in every grading command (grader.prestart).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

REQUIRES_JSON = "requires.json"  # in exercises/ of an exported grading package
# distributions whose import name is not their project name
IMPORT_NAMES = {
    "scikit-learn": "sklearn",
    "pillow": "PIL",
    "pyyaml": "yaml",
    "opencv-python": "cv2",
    "opencv-python-headless": "cv2",
    "beautifulsoup4": "bs4",
    "python-dateutil": "dateutil",
}
TORCH_SUBMODULES = ("torch.nn", "torch.nn.functional", "torch.nn.init", "torch.fft", "torch.linalg")
_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


def requirement_name(requirement: str) -> str:
    """The project name of a pip requirement string ("torch>=2.2" -> "torch"), lower case."""
    found = _NAME.match(requirement)
    return found.group(1).lower().replace("_", "-") if found else ""


def import_name(requirement: str) -> str:
    name = requirement_name(requirement)
    return IMPORT_NAMES.get(name, name.replace("-", "_").replace(".", "_"))


def course_requirements(root: str | Path) -> list[str]:
    """The course's `requires:` as written (unvalidated here: `coursegen check` validates it);
    [] when the course declares none or cannot be read. The grader reads it through its course
    value (`grader.course.Course.requirements`)."""
    root = Path(root)
    course_file = root / "content" / "course.yaml"
    try:
        if course_file.is_file():
            try:  # PyYAML is the engine's; an exported package has no course.yaml (it reads REQUIRES_JSON)
                import yaml
            except ImportError:
                return []
            loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
            data = yaml.load(course_file.read_text(encoding="utf-8"), Loader=loader)
            listed = data.get("requires") if isinstance(data, dict) else None
        else:
            exported = root / "exercises" / REQUIRES_JSON
            listed = json.loads(exported.read_text(encoding="utf-8")) if exported.is_file() else None
    except Exception:  # a broken file: `coursegen check` reports it
        return []
    if not isinstance(listed, list):
        return []
    return [r for r in listed if isinstance(r, str)]


def uses(requirements: list[str], project: str) -> bool:
    return any(requirement_name(r) == project for r in requirements)


def preload_modules(requirements: list[str]) -> list[str]:
    """The modules the warm worker imports for a course with these requirements (torch with the
    submodules student code commonly uses)."""
    modules: list[str] = []
    for requirement in requirements:
        name = import_name(requirement)
        if name and name not in modules:
            modules.append(name)
            if name == "torch":
                modules.extend(TORCH_SUBMODULES)
    return modules
