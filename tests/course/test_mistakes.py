"""The mistake catalogue: enough mistakes per exercise, bilingual hints, sources that replace
the reference definition, and the typical mistakes the course promises to recognise."""

from __future__ import annotations

import re
import types
from collections import Counter
from pathlib import Path

import pytest

from tests.first_course import BY_NAME, EXERCISES
from tests.first_course import catalogue

ROOT = Path(__file__).resolve().parents[2]
MISTAKES = catalogue()


def test_every_exercise_has_at_least_three_mistakes():
    counts = Counter(m.target for m in MISTAKES)
    assert {e.name: counts[e.name] for e in EXERCISES if counts[e.name] < 3} == {}


@pytest.mark.parametrize("mistake", MISTAKES, ids=lambda m: m.id)
def test_mistake_has_a_kebab_case_id_and_bilingual_hints(mistake):
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)+", mistake.id)
    assert len(mistake.hint["en"]) > 40 and len(mistake.hint["zh"]) > 15
    assert re.search(r"[\u4e00-\u9fff]", mistake.hint["zh"]), "the zh hint must be written in Chinese"


@pytest.mark.parametrize("mistake", MISTAKES, ids=lambda m: m.id)
def test_mistake_source_replaces_the_reference_definition(mistake):
    """What `coursegen verify` grades: the reference module followed by the mistake's source."""
    assert mistake.module == BY_NAME[mistake.target].module
    reference = (ROOT / "solutions" / f"{mistake.module}.py").read_text()
    module = types.ModuleType(f"mistaken_{mistake.module}")
    exec(compile(reference + "\n\n" + mistake.source, f"<{mistake.id}>", "exec"), module.__dict__)
    replaced = getattr(module, mistake.target)
    code = (replaced.forward if isinstance(replaced, type) else replaced).__code__
    assert code.co_filename == f"<{mistake.id}>"
    assert "@mistake" not in mistake.source


@pytest.mark.parametrize(
    "required",
    [
        "sinusoid-sin-cos-swapped",
        "sinusoid-exponent-i-over-d",
        "sinusoid-sines-then-cosines",
        "rope-half-split",
        "rope-clockwise",
        "rope-ignores-positions",
        "alibi-power-of-two-formula-everywhere",
        "alibi-bias-positive",
        "alibi-bias-signed-offset",
        "relative-i-minus-j",
        "backward-overwrites-repeats",
        "tied-copied-weight",
        "count-tied-twice",
        "pad-mask-true-at-padding",
        "pad-left-padding",
        "encode-raises-on-unknown",
        "one-hot-without-num-classes",
        "attention-no-scale",
        "attention-softmax-over-queries",
        "learned-rows-from-one",
        "learned-no-length-check",
    ],
)
def test_the_typical_mistakes_named_in_the_course_are_catalogued(required):
    assert required in {m.id for m in MISTAKES}
