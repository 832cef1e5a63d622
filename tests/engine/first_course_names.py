"""The names and topic words of the repository's own course: what the engine must not contain
(tests/engine/test_engine_knows_no_course.py) and what a second course's site must not show
(tests/engine/test_second_course.py). The names are data (first_course_names.json, beside this file),
so these tests need no first course; tests/course/test_first_course_names.py keeps the data exact."""

from __future__ import annotations

import json
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
NAMES_FILE = Path(__file__).with_name("first_course_names.json")

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


def course_names() -> dict[str, str]:
    """Every name the first course defines -> what it is (exercise, exercise module, answer function,
    figure, self-check, mistake, lesson id, key term), as committed in first_course_names.json: the
    engine's tests run without the course (bench/engine_without_course.py), and
    tests/course/test_first_course_names.py proves the file lists exactly what the course's sources define."""
    return json.loads(NAMES_FILE.read_text(encoding="utf-8"))


WORD = re.compile(r"[A-Za-z][A-Za-z0-9_]*(?:-[A-Za-z0-9]+)*")


def words_of(text: str) -> list[tuple[str, list[str]]]:
    """The words of a text as the scans compare them: identifiers and kebab-case ids whole, each with
    its parts (`apply_rope` -> ("apply_rope", ["apply", "rope"]), `rope-alibi` -> ("rope-alibi", ["rope", "alibi"]))."""
    found = []
    for word in WORD.findall(text):
        parts = [part for part in re.split(r"[-_]", word) if part]
        found.append((word, parts if len(parts) > 1 else []))
    return found
