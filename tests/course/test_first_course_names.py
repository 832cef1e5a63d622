"""tests/engine/first_course_names.json lists exactly the names the first course defines, read here
from the course's own sources (never imported). The engine's tests read that list, not the course,
so that they run without it (bench/engine_without_course.py); this test keeps the list from going
stale: a name the course adds tomorrow must be added to the list, and so is forbidden in the engine.

    python tests/course/test_first_course_names.py   # rewrites the list from the course's sources
"""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]
NAMES_FILE = REPO / "tests" / "engine" / "first_course_names.json"


def _constant(node: ast.expr) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _call_name(node: ast.expr) -> str | None:
    target = node.func if isinstance(node, ast.Call) else node
    if isinstance(target, ast.Name):
        return target.id
    return target.attr if isinstance(target, ast.Attribute) else None


def course_names(root: Path) -> dict[str, str]:
    """Every name the course defines -> what it is: exercises and their modules (exercises/registry.py),
    answer functions, oracles, figures and self-checks (content/plugins/*.py), catalogued mistakes
    (solutions/mistakes/*.py), lesson ids and key-term ids (content/)."""
    names: dict[str, str] = {}
    registry = ast.parse((root / "exercises" / "registry.py").read_text(encoding="utf-8"))
    for node in ast.walk(registry):
        if isinstance(node, ast.Call) and _call_name(node) == "Exercise" and len(node.args) >= 2:
            names[_constant(node.args[0]) or ""] = "exercise"
            names.setdefault(_constant(node.args[1]) or "", "exercise module")
    for path in sorted((root / "content" / "plugins").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and _call_name(node) in ("answer_function", "oracle") and node.args:
                names.setdefault(_constant(node.args[0]) or "", f"answer function ({path.name})")
            if isinstance(node, ast.Call) and _call_name(node) == "SelfCheckSpec" and node.args:
                names.setdefault(_constant(node.args[0]) or "", f"self-check ({path.name})")
            if isinstance(node, ast.FunctionDef) and any(_call_name(d) == "figure" for d in node.decorator_list):
                names.setdefault(node.name, f"figure ({path.name})")
    for path in sorted((root / "solutions" / "mistakes").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and _call_name(node) == "mistake":
                for keyword in node.keywords:
                    if keyword.arg == "id" and _constant(keyword.value):
                        names.setdefault(_constant(keyword.value) or "", f"mistake ({path.name})")
    for path in sorted((root / "content" / "lessons").glob("*.yaml")):
        names.setdefault(path.stem, "lesson id")
        lesson = yaml.safe_load(path.read_text(encoding="utf-8"))
        for term in lesson.get("key_terms", []):
            names.setdefault(term["id"], f"key term ({path.name})")
    names.pop("", None)
    return names


def listing(names: dict[str, str]) -> str:
    return json.dumps(dict(sorted(names.items())), indent=1, ensure_ascii=False) + "\n"


def test_the_committed_list_is_what_the_course_sources_define():
    committed = json.loads(NAMES_FILE.read_text(encoding="utf-8"))
    defined = course_names(REPO)
    missing = {n: k for n, k in defined.items() if committed.get(n) != k}
    stale = sorted(set(committed) - set(defined))
    assert not missing and not stale, (
        f"{NAMES_FILE.relative_to(REPO)} is out of date (missing or changed: {missing}; no longer defined: "
        f"{stale}); rewrite it with: python tests/course/test_first_course_names.py"
    )


def test_the_reader_finds_each_kind_of_name_where_the_course_defines_it():
    names = course_names(REPO)
    for name, kind in (
        ("apply_rope", "exercise"),
        ("rope", "exercise module"),
        ("rope-alibi", "lesson id"),
        ("alibi_slope", "answer function"),
        ("rope_rotation", "figure"),
        ("rope-half-split", "mistake"),
        ("weight-tying", "key term"),
    ):
        assert names.get(name, "").startswith(kind), (name, names.get(name))
    assert len([k for k, v in names.items() if v == "exercise"]) >= 20


if __name__ == "__main__":
    NAMES_FILE.write_text(listing(course_names(REPO)), encoding="utf-8")
    print(f"wrote {NAMES_FILE.relative_to(REPO)}", file=sys.stderr)
