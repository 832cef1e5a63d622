"""The names and topic words of the repository's own course, read from its sources (never imported):
what the engine must not contain (tests/engine/test_engine_knows_no_course.py) and what a second
course's site must not show (tests/engine/test_second_course.py)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]

# Words of the first course's subject that name no exercise, figure or lesson on their own.
TOPIC_WORDS = (
    "rope",
    "alibi",
    "transformer",
    "transformers",
    "embedding",
    "embeddings",
    "token",
    "tokens",
    "tokenizer",
    "tokenizers",
    "vocab",
    "vocabulary",
    "logits",
    "sinusoidal",
    "sinusoid",
    "positional",
    "attention",
    "bpe",
    "subword",
    "subwords",
    "ntk",
    "tinylm",
    "lm_head",
    "kv_cache",
)

# The same in Chinese (matched as substrings: Chinese has no spaces between words).
TOPIC_WORDS_ZH = ("位置编码", "嵌入", "词表", "注意力", "分词器", "语言模型")

# Known leftovers, each with its reason: (file relative to the repository, the word).
KNOWN_LEFTOVERS: dict[tuple[str, str], str] = {}  # (engine file, word): why it must stay for now


def _constant(node: ast.expr) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _call_name(node: ast.expr) -> str | None:
    target = node.func if isinstance(node, ast.Call) else node
    if isinstance(target, ast.Name):
        return target.id
    return target.attr if isinstance(target, ast.Attribute) else None


def course_names(root: Path = REPO) -> dict[str, str]:
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


WORD = re.compile(r"[A-Za-z][A-Za-z0-9_]*(?:-[A-Za-z0-9]+)*")


def words_of(text: str) -> list[tuple[str, list[str]]]:
    """The words of a text as the scans compare them: identifiers and kebab-case ids whole, each with
    its parts (`apply_rope` -> ("apply_rope", ["apply", "rope"]), `rope-alibi` -> ("rope-alibi", ["rope", "alibi"]))."""
    found = []
    for word in WORD.findall(text):
        parts = [part for part in re.split(r"[-_]", word) if part]
        found.append((word, parts if len(parts) > 1 else []))
    return found
