"""A course as a value: its root, its exercise registry, its references, stubs and mistakes,
loaded by path under a package name of its own.

    course = Course.load(root)            # cached per root: loading twice gives the same value
    course.registry.by_name["dot"]        # Exercise("dot", "vectors", "function")
    course.module("solutions", "vectors") # solutions/vectors.py, imported as
                                          #   _coursegen_course_<hash>.solutions.vectors
    course.catalogue("vectors")           # its @mistake definitions (grader.contract)
    course.checks_dir                     # grader/checks/, the checks the grader's pytest session collects
    course.requirements                   # `requires:` of content/course.yaml (grader.course_requires)
    course.definition(assignment)         # an assignment's points, from its checks (grader.reporting.assignments)

The engine is handed this value (every command loads it once from its --root; a grading process,
local or on Dask, from the root it is given): nothing in grader/ looks for "the" course on its own.

Nothing of a course is imported by a fixed name (`exercises`, `solutions`): each course is the
package `_coursegen_course_<hash of its root>`, whose only search path is the root, so two courses
load side by side in one process and a course module never shadows, or is shadowed by, another
course's. A course's own modules import each other relatively (`from .vectors import dot`) and
the contract from `grader.contract`.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.machinery
import importlib.util
import re
import sys
import types
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from grader import contract
from grader.contract import Exercise, Mistake
from grader.errors import CoursegenError

if TYPE_CHECKING:
    from grader.reporting.assignments import Assignment, Definition

PACKAGE_PREFIX = "_coursegen_course_"
COURSE_KINDS = ("exercises", "solutions")
# Course code written for the contract that each course used to carry (before `coursegen upgrade`).
_OLD_CONTRACT = re.compile(r"^\s*(from\s+(solutions|exercises)(\.\w+)*\s+import\b|import\s+(solutions|exercises)\b)")


class CourseError(CoursegenError):
    """A course's code cannot be loaded as it is; the message says where and what to do."""

    exit_status = 1  # the course's code is wrong, not the tool


@dataclass(frozen=True)
class Registry:
    """The exercises a course grades (exercises/registry.py's EXERCISES), in registry order."""

    exercises: tuple[Exercise, ...]

    @cached_property
    def by_name(self) -> dict[str, Exercise]:
        return {e.name: e for e in self.exercises}

    @cached_property
    def modules(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(e.module for e in self.exercises))

    def exercises_in(self, module: str) -> tuple[Exercise, ...]:
        """The exercises of one module, in registry order."""
        return tuple(e for e in self.exercises if e.module == module)


class Course:
    """One course root, its code loaded on first use under a package name no other course has."""

    _loaded: dict[Path, Course] = {}

    def __init__(self, root: Path) -> None:
        self.root = root
        self.package = PACKAGE_PREFIX + hashlib.sha256(str(root).encode()).hexdigest()[:12]
        self._contract_checked: set[tuple[Path, int, int]] = set()  # files found free of the old contract

    @classmethod
    def load(cls, root: str | Path) -> Course:
        resolved = Path(root).resolve()
        if resolved not in cls._loaded:
            cls._loaded[resolved] = cls(resolved)
        return cls._loaded[resolved]

    @classmethod
    def loaded_roots(cls) -> tuple[Path, ...]:
        """The roots of the courses loaded in this process (their code may be anywhere in it)."""
        return tuple(cls._loaded)

    @classmethod
    def forget(cls, root: str | Path) -> None:
        """Load the course at `root` afresh next time (its files were changed on disk)."""
        course = cls._loaded.pop(Path(root).resolve(), None)
        if course is not None:
            course._unload()

    # ---- the parts of a course ---------------------------------------------------------------

    @property
    def checks_dir(self) -> Path:
        return self.root / "grader" / "checks"

    @cached_property
    def requirements(self) -> tuple[str, ...]:
        """What the course needs at run time besides the engine (`requires:`, grader.course_requires)."""
        from grader import course_requires

        return tuple(course_requires.course_requirements(self.root))

    @cached_property
    def limits(self) -> dict[str, Any]:
        """The course's limits for student code (`limits:`, grader.course_limits): Limits(**course.limits)."""
        from grader import course_limits

        return course_limits.course_limits(self.root)

    def uses(self, project: str) -> bool:
        """Whether the course requires the distribution `project` ("torch")."""
        from grader import course_requires

        return course_requires.uses(list(self.requirements), project)

    @cached_property
    def preload_modules(self) -> tuple[str, ...]:
        """What the sandbox's warm worker imports before it forks children (torch for a torch course)."""
        from grader import course_requires

        return tuple(course_requires.preload_modules(list(self.requirements)))

    def check_points(self) -> dict[str, float]:
        """exercise -> the points its checks declare, read from the checks' syntax (grader.reporting.assignments)."""
        from grader.reporting.assignments import check_points

        return check_points(self.checks_dir)

    def definition(self, assignment: Assignment) -> Definition:
        """What `assignment` is graded out of, with this course's checks (AssignmentError if it cannot be)."""
        from grader.reporting.assignments import resolve

        return resolve(assignment, self.check_points())

    @cached_property
    def registry(self) -> Registry:
        """exercises/registry.py's EXERCISES; an empty registry for a course without one."""
        if not (self.root / "exercises" / "registry.py").is_file():
            return Registry(())
        module = self.module("exercises", "registry")
        found = getattr(module, "EXERCISES", None)
        if not isinstance(found, (tuple, list)):
            raise CourseError(
                f"{self.root / 'exercises' / 'registry.py'}: no EXERCISES tuple (of grader.contract.Exercise)"
            )
        return Registry(tuple(Exercise(e.name, e.module, e.kind) for e in found))

    def has_module(self, kind: str, name: str) -> bool:
        return (self.root / kind / f"{name}.py").is_file()

    def module(self, kind: str, name: str) -> types.ModuleType:
        """`kind`/`name`.py of this course (kind: "exercises" or "solutions", name may be dotted,
        "mistakes.vectors"), imported under this course's package."""
        if kind not in COURSE_KINDS:
            raise ValueError(f"course module kind {kind!r}: expected one of {COURSE_KINDS}")
        self._install_package()
        return importlib.import_module(f"{self.package}.{kind}.{name}")

    def optional_module(self, kind: str, name: str) -> types.ModuleType | None:
        """Like module(), None when the course has no such file."""
        path = self.root / kind / Path(*name.split("."))
        if not (path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()):
            return None
        return self.module(kind, name)

    def reference(self, name: str) -> Any:
        """The reference implementation of exercise `name` (solutions/<module>.py)."""
        return getattr(self.module("solutions", self.registry.by_name[name].module), name)

    def catalogue(self, module: str | None = None) -> list[Mistake]:
        """The catalogued mistakes (of one exercise module, if given), in definition order."""
        for name in self.registry.modules if module is None else (module,):
            if (self.root / "solutions" / "mistakes" / f"{name}.py").is_file():
                self._refuse_old_contract(self.root / "solutions" / "mistakes" / f"{name}.py")
                self.module("solutions", f"mistakes.{name}")
        return [m for m in contract.registered(self.package) if module is None or m.module == module]

    def for_target(self, target: str) -> list[Mistake]:
        """The catalogued mistakes of one exercise name."""
        return [m for m in self.catalogue(self.registry.by_name[target].module) if m.target == target]

    # ---- loading by path ---------------------------------------------------------------------

    def _install_package(self) -> None:
        if self.package in sys.modules:
            return
        init = self.root / "solutions" / "mistakes" / "__init__.py"
        if init.is_file():
            self._refuse_old_contract(init)
        spec = importlib.machinery.ModuleSpec(self.package, None, is_package=True)
        spec.submodule_search_locations = [str(self.root)]
        package = importlib.util.module_from_spec(spec)
        package.__doc__ = f"the course at {self.root}"
        sys.modules[self.package] = package

    def _unload(self) -> None:
        contract.forget(self.package)
        for name in [n for n in sys.modules if n == self.package or n.startswith(self.package + ".")]:
            del sys.modules[name]
        self.__dict__.pop("registry", None)

    def _refuse_old_contract(self, path: Path) -> None:
        """Course code that imports the course by name (`from solutions.mistakes import mistake`)
        or defines the mistake machinery itself was written for the contract each course used to
        copy; it would register its mistakes where the engine never looks."""
        info = path.stat()
        seen = (path, info.st_mtime_ns, info.st_size)
        if seen in self._contract_checked:  # grading asks once per check and submission
            return
        text = path.read_text(encoding="utf-8")
        for number, line in enumerate(text.splitlines(), 1):
            if _OLD_CONTRACT.match(line) or re.match(r"def mistake\(", line):
                raise CourseError(
                    f"{path}:{number}: {line.strip()!r}: a course's code gets the course contract from the "
                    f"engine (`from grader.contract import mistake`) and imports its own modules relatively; "
                    f"run `coursegen upgrade --root {self.root}` to migrate this course"
                )
        self._contract_checked.add(seen)


def is_course_module(name: str) -> bool:
    """Whether module `name` is a course's code loaded by grader.course."""
    return name.startswith(PACKAGE_PREFIX)
