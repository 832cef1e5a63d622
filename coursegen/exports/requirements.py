"""The dependency list of an exported grading package, derived from what its code imports.

An export installs into a clean environment with nothing but what its `pyproject.toml`
declares (plus the CPU torch that setup.sh / the workflow installs first), so the list
must hold every distribution the shipped code imports, and needs nothing else:

* every `import x` / `from x import y` in the shipped .py files is read with `ast`;
* standard-library modules and modules the package ships itself are left out;
* an import inside `try: ... except ImportError` is optional (the code runs without it): it is
  declared when coursegen declares it (e.g. the sandbox's seccomp binding, optional only for
  other platforms, with its platform marker), and left out otherwise;
* the project's own modules are never a dependency (they are not on an index): `coursegen`
  (the build engine) is never shipped and the shipped command line (`coursegen_cli`, a copy of
  coursegen/cli.py and coursegen/commands/) imports it only inside the building commands; the
  Classroom package leaves `solutions` out and the grader imports it only inside the reference
  code paths, which replay mode never runs. Such an import inside a function is allowed; at
  module level it is an error (the package would not even import);
* every other top-level name is mapped to its distribution (`importlib.metadata`) and
  given the version specifier coursegen itself declares for it; an import coursegen does
  not declare is an ExportError naming the file and line.
"""

from __future__ import annotations

import ast
import functools
import sys
import tomllib
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Mapping

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from .files import ExportError

ENGINE = "coursegen"  # the project's distribution
PROJECT_MODULES = {"coursegen", "solutions", "exercises", "grader", "coursegen_cli"}  # its top-level modules
SOURCE_PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"
OPTIONAL_ERRORS = {"ImportError", "ModuleNotFoundError", "Exception", "BaseException"}


@dataclass(frozen=True)
class ImportSite:
    module: str  # top-level name, e.g. "tqdm"
    path: Path
    line: int
    optional: bool  # inside try/except ImportError
    in_function: bool  # inside a def (imported when called, not when the module loads)

    def where(self, root: Path) -> str:
        return f"{self.path.relative_to(root).as_posix()}:{self.line}"


def _catches_import_error(handler: ast.ExceptHandler) -> bool:
    if handler.type is None:
        return True
    names = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any(isinstance(n, ast.Name) and n.id in OPTIONAL_ERRORS for n in names)


def _import_sites(path: Path) -> list[ImportSite]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    sites: list[ImportSite] = []

    def visit(node: ast.AST, optional: bool, in_function: bool) -> None:
        if isinstance(node, ast.Import):
            for alias in node.names:
                sites.append(ImportSite(alias.name.split(".")[0], path, node.lineno, optional, in_function))
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0 and node.module:
                sites.append(ImportSite(node.module.split(".")[0], path, node.lineno, optional, in_function))
        elif isinstance(node, ast.Try):
            guarded = optional or any(_catches_import_error(h) for h in node.handlers)
            for child in node.body:
                visit(child, guarded, in_function)
            for part in [*node.handlers, *node.orelse, *node.finalbody]:
                visit(part, optional, in_function)
            return
        elif isinstance(node, ast.If) and _is_type_checking(node.test):
            return  # `if TYPE_CHECKING:` imports never run
        inner = in_function or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
        for inner_node in ast.iter_child_nodes(node):
            visit(inner_node, optional, inner)

    visit(tree, False, False)
    return sites


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def shipped_top_level_names(package: Path) -> set[str]:
    """Modules and packages the exported folder provides itself."""
    names = {p.stem for p in package.glob("*.py")}
    names |= {p.name for p in package.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    return names


def third_party_imports(package: Path) -> list[ImportSite]:
    """Every import in the package's .py files of a module it neither ships nor gets from Python."""
    own = shipped_top_level_names(package)
    found = []
    for path in sorted(package.rglob("*.py")):
        for site in _import_sites(path):
            if site.module not in own and site.module not in sys.stdlib_module_names:
                found.append(site)
    return found


def declared_requirements() -> dict[str, Requirement]:
    """coursegen's own dependencies (extras included), by canonical distribution name: from the
    source tree's pyproject.toml when there is one (it is newer than installed metadata), else
    from the installed distribution's metadata."""
    texts: list[str] = []
    if SOURCE_PYPROJECT.is_file():
        project = tomllib.loads(SOURCE_PYPROJECT.read_text(encoding="utf-8")).get("project", {})
        if project.get("name") == ENGINE:
            texts = list(project.get("dependencies", []))
            for extra in project.get("optional-dependencies", {}).values():
                texts += extra
    if not texts:  # an installed engine: its metadata, each extra's requirements without the extra marker
        texts = list(metadata.requires(ENGINE) or [])
    declared: dict[str, Requirement] = {}
    for text in texts:
        requirement = Requirement(text)
        if requirement.marker is not None and "extra" in str(requirement.marker):
            requirement.marker = None
        declared.setdefault(canonicalize_name(requirement.name), requirement)
    return declared


@functools.lru_cache(maxsize=1)
def _distributions_by_module() -> Mapping[str, list[str]]:
    return metadata.packages_distributions()  # scans every installed distribution: once


def _distribution_of(module: str) -> str:
    distributions = _distributions_by_module().get(module)
    if not distributions:
        return module
    return sorted(distributions)[0]


def package_requirements(package: Path, course_requires: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The requirement strings the exported `package` needs, sorted by name; ExportError when the
    shipped code imports something neither coursegen nor the course (`course_requires`, its
    `requires:`) declares, or the engine at module level. The course's specifier wins for its own
    distributions (torch is the first course's requirement, not the engine's)."""
    declared = declared_requirements()
    for text in course_requires:
        course_requirement = Requirement(text)
        declared[canonicalize_name(course_requirement.name)] = course_requirement
    needed: dict[str, str] = {}
    problems = []
    for site in third_party_imports(package):
        name = canonicalize_name(_distribution_of(site.module))
        if site.module in PROJECT_MODULES or name == ENGINE:
            if not site.in_function and not site.optional:
                problems.append(
                    f"{site.where(package)}: imports `{site.module}` at module level, which the "
                    "grading package does not ship (import it inside the function that needs it)"
                )
            continue
        requirement = declared.get(name)
        if requirement is None and site.optional:
            continue
        if requirement is None:
            problems.append(
                f"{site.where(package)}: imports `{site.module}` (distribution {name!r}), which "
                "neither the course nor coursegen declares; add it to `requires:` in content/course.yaml, "
                "or guard the import with `try: ... except ImportError`"
            )
            continue
        needed[name] = str(requirement)
    if problems:
        raise ExportError("the grading package cannot declare its dependencies:\n  " + "\n  ".join(problems))
    return tuple(needed[name] for name in sorted(needed))
