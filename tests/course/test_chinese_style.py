"""One Chinese term per concept across the course, and full-width quotes in Chinese quiz strings."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from ruamel.yaml import YAML

REPO = Path(__file__).resolve().parents[2]
# concept -> the term used, and the variants that must not appear in Chinese text
TERMS = {
    "token": ("token", ["词元", "标记"]),
    "LM head": ("LM head", ["LM Head", "输出头", "语言模型头", "输出层"]),
    "weight tying": ("权重绑定", ["权重共享", "共享权重", "权重捆绑"]),
    # tied / untied: 绑定 / 不绑定 (a "shared table" may still be described as 共享的表)
    "tied, untied": ("绑定 / 不绑定", ["不共享", "共享时", "共享用", r"共享\s*\$", "，共享$"]),
    "insensitive to order": ("对顺序不敏感", ["无感"]),
    "query/key": ("query / key", ["查询向量", "查询", "键向量", "(?<!关)键"]),
}


def chinese_strings(pattern: str):
    yaml = YAML(typ="safe")
    for path in sorted((REPO / "content").glob(pattern)):

        def walk(value, key=None):
            if isinstance(value, dict):
                for k, v in value.items():
                    yield from walk(v, k)
            elif isinstance(value, list):
                for v in value:
                    yield from walk(v, key)
            elif isinstance(value, str) and key == "zh":
                yield value

        for text in walk(yaml.load(path.read_text(encoding="utf-8"))):
            yield path.relative_to(REPO).as_posix(), text


@pytest.mark.parametrize("concept", sorted(TERMS))
def test_one_chinese_term_per_concept(concept):
    _term, variants = TERMS[concept]
    found = [
        f"{where}: {match.group(0)!r} in {text[:60]!r}"
        for where, text in chinese_strings("*/*.yaml")
        for variant in variants
        for match in [re.search(variant, re.sub(r"`[^`]*`", "", text))]
        if match
    ]
    assert found == []


def test_chinese_quiz_strings_use_full_width_quotes():
    found = [
        f"{where}: {text[:80]!r}"
        for where, text in chinese_strings("quizzes/*.yaml")
        if re.search(r"[\"']", re.sub(r"`[^`]*`|\$[^$]*\$", "", text))
    ]
    assert found == []


def hint_and_selfcheck_strings():
    """Chinese texts students read outside content/: mistake hints (grader feedback) and notebook self-checks."""
    from tests.first_course import catalogue

    for m in catalogue():
        yield f"mistake {m.id}", m.hint["zh"]
    for line in (REPO / "content" / "plugins" / "selfchecks.py").read_text(encoding="utf-8").splitlines():
        for text in re.findall(r'"([^"]*[\u4e00-\u9fff][^"]*)"', line):
            yield "content/plugins/selfchecks.py", text


@pytest.mark.parametrize("concept", sorted(TERMS))
def test_one_chinese_term_per_concept_in_hints_and_self_checks(concept):
    _term, variants = TERMS[concept]
    found = [
        f"{where}: {match.group(0)!r} in {text[:60]!r}"
        for where, text in hint_and_selfcheck_strings()
        for variant in variants
        for match in [re.search(variant, re.sub(r"`[^`]*`", "", text))]
        if match
    ]
    assert found == []
