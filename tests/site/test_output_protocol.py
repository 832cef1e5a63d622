"""The shape of the build (issue 33.1): outputs are modules of coursegen/outputs/ named in one list,
the build is one loop with no per-output branch, it imports nothing of verification, and no output
module (nor the slides) imports the build."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from coursegen import outputs
from tests.nonempty import nonempty

ALL_OUTPUTS = list(outputs.OUTPUTS)  # captured before the site-only fixture narrows them
ENGINE = Path(__file__).resolve().parents[2] / "coursegen"


def imported_modules(path: Path) -> set[str]:
    """Every module `path` imports (at any depth, relative imports resolved within coursegen)."""
    package = ".".join(path.relative_to(ENGINE.parent).with_suffix("").parts)
    if path.name == "__init__.py":
        package += ".__init__"
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: -node.level]
                base = ".".join(parent + ([base] if base else []))
            names.add(base)
            names |= {f"{base}.{alias.name}" for alias in node.names}
    return names


def test_every_output_module_is_named_in_the_list_and_has_units():
    modules = {path.stem for path in ENGINE.glob("outputs/*.py")} - {"__init__", "keys"}
    assert sorted(f"coursegen.outputs.{name}" for name in nonempty(modules)) == sorted(ALL_OUTPUTS)
    for module in outputs.output_modules(ALL_OUTPUTS):
        assert callable(module.units), module.__name__


def test_no_output_module_and_no_slide_module_imports_the_build():
    files = [*ENGINE.glob("outputs/*.py"), *ENGINE.glob("slides/*.py")]
    for path in nonempty(files):
        assert "coursegen.build" not in imported_modules(path), path


def test_the_build_has_no_branch_per_writer():
    sources = [*ENGINE.rglob("*.py"), *(ENGINE.parent / "grader").rglob("*.py")]
    assert [str(p) for p in nonempty(sources) if "writer is" in p.read_text(encoding="utf-8")] == []


def test_a_build_imports_nothing_of_verification(tmp_path):
    """A whole build of the mini course (site outputs) in a fresh process: no grader.verifying module."""
    import shutil

    root = tmp_path / "course"
    shutil.copytree(
        Path(__file__).parent / "fixtures" / "mini", root, ignore=shutil.ignore_patterns(".coursegen-cache", "_site*")
    )
    script = (
        "import sys\n"
        "from coursegen import build, outputs\n"
        "outputs.OUTPUTS = list(outputs.SITE_OUTPUTS)\n"
        f"build.build_site({str(root)!r}, {str(tmp_path / '_site')!r}, progress=False)\n"
        "print(sorted(m for m in sys.modules if m.startswith('grader.verifying')))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
    assert (tmp_path / "_site" / "en" / "alpha.html").is_file()
