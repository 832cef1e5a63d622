"""What each proof of `coursegen verify` depends on, as digests of files (grader/verifying/proof_cache.py).

Read from the files alone (nothing imported, so a run where nothing changed imports no torch).
Conservative on purpose: when a file might matter, it is in the key.

    every exercise proof of module M:
        the whole checks folder (one pytest session collects all of it: a fixture or a broken
        file elsewhere changes every result), pytest's configuration files at the course root,
        exercises/registry.py and exercises/__init__.py, every reference module
        (solutions/*.py: references may import each other, and checks call them in the parent),
        solutions/mistakes/__init__.py, and the catalogue files of M and of every module whose
        exercise names the checks of M mention (the grader runs those mistakes to recognise an
        output and show its hint), with every course file those import;
    the stub proof:       also exercises/M.py (the submission);
    the values proof:     the checks, configuration, registry and references only (no catalogue);
    signature proofs:     every stub and reference module (both are imported), the registry;
    quiz proofs:          see coursegen.quiz.verify_cache.
The engine's own source and version and the libraries' versions are in every key (ProofCache.key).
"""

from __future__ import annotations

import ast
from pathlib import Path

from grader.digests import digest_bytes, digest_files, digest_tree, tree_files
from grader.verifying.proof_cache import _import_closure

PYTEST_CONFIG = ("pyproject.toml", "pytest.ini", "setup.cfg", "tox.ini", "conftest.py")


class VerifyKeys:
    def __init__(self, root: Path, checks_dir: Path) -> None:
        self.root = Path(root).resolve()
        self.checks_dir = Path(checks_dir).resolve()
        self._common: dict[str, str] = {}
        self._base = digest_bytes(
            "checks",
            digest_tree(self.checks_dir),
            "config",
            digest_files([self.root / name for name in PYTEST_CONFIG], self.root),
            "registry",
            digest_files([self.root / "exercises" / "registry.py", self.root / "exercises" / "__init__.py"], self.root),
            "references",
            digest_files(sorted((self.root / "solutions").glob("*.py")), self.root),
            "catalogue",
            digest_files([self.root / "solutions" / "mistakes" / "__init__.py"], self.root),
        )

    def exercise_common(self, module: str, modules: dict[str, str]) -> str:
        """The digest every exercise proof of `module` shares; `modules`: exercise name -> module."""
        if module not in self._common:
            related = {module} | {modules[n] for n in self._names_in_checks(module, set(modules)) if n in modules}
            catalogue = {self.root / "solutions" / "mistakes" / f"{m}.py" for m in related}
            present = {p.resolve() for p in catalogue if p.is_file()}
            files = sorted(catalogue | _import_closure(present, self.root))
            self._common[module] = digest_bytes(self._base, "mistakes", digest_files(files, self.root))
        return self._common[module]

    def probes(self) -> str:
        """The odd-value proof of any module (grader/verifying/odd_values.py): the checks, pytest's
        configuration, the registry and every reference (the probes embed them, the checks call
        them); no catalogue: no mistake runs on a probe, so a hint edit does not re-prove it."""
        return self._base

    def _names_in_checks(self, module: str, names: set[str]) -> set[str]:
        """Exercise names mentioned (strings, names, attributes) in the check files that check an
        exercise of `module` (normally grader/checks/test_<module>.py)."""
        from grader.course import Course

        own = {e.name for e in Course.load(self.root).registry.exercises_in(module)}
        mentioned: set[str] = set()
        for path in sorted(self.checks_dir.glob("test_*.py")):
            try:
                tree = ast.parse(path.read_text(encoding="utf-8"))
            except (OSError, SyntaxError, ValueError):
                continue  # a broken check file changes the checks digest; the session reports it
            found: set[str] = set()
            for node in ast.walk(tree):
                if isinstance(node, ast.Constant) and isinstance(node.value, str):
                    found.add(node.value)
                elif isinstance(node, ast.Name):
                    found.add(node.id)
                elif isinstance(node, ast.Attribute):
                    found.add(node.attr)
            if found & own:
                mentioned |= found & names
        return mentioned

    def signatures(self) -> str:
        """Every stub module and every reference module (the signature proofs import both; the
        references may import each other), with the registry."""
        return digest_bytes(
            "registry",
            digest_files([self.root / "exercises" / "registry.py"], self.root),
            "stubs",
            digest_files(tree_files(self.root / "exercises", "*.py"), self.root),
            "solutions",
            digest_files(sorted((self.root / "solutions").glob("*.py")), self.root),
        )
