"""docs/instructors.md, "Grading at scale" (English and Chinese): the Slurm, Kubernetes and GitHub
Actions examples cannot run here, so each is checked as far as it can be: YAML parses (YAML 1.2,
duplicate keys refused), Python compiles, bash passes `bash -n`, and every `coursegen grade` option
they use exists. Both languages carry the same examples."""

from __future__ import annotations

import re
import shlex
import subprocess
from pathlib import Path

import pytest
from ruamel.yaml import YAML
from tests.nonempty import nonempty

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "instructors.md"
SECTIONS = {"en": "### Grading at scale", "zh": "### 大规模评分"}
FENCE = re.compile(r"^```(\w+)\n(.*?)^```$", re.MULTILINE | re.DOTALL)


def section(heading: str) -> str:
    text = GUIDE.read_text(encoding="utf-8")
    assert text.count(heading + "\n") == 1, f"{GUIDE}: expected one section {heading!r}"
    start = text.index(heading + "\n") + len(heading)
    end = text.find("\n### ", start)
    return text[start : end if end != -1 else None]


def blocks(lang: str) -> list[tuple[str, str]]:
    return FENCE.findall(section(SECTIONS[lang]))


def comments_dropped(code: str, kind: str) -> str:
    """The code without its comments (which are translated), for comparing the two languages."""
    if kind == "python":
        code = re.sub(r'^"""[^\n]*"""$', '"""docstring"""', code, flags=re.MULTILINE)
    return "\n".join(re.sub(r"\s+#[^\n{]*$", "", line).rstrip() for line in code.splitlines())


@pytest.mark.parametrize("lang", SECTIONS)
def test_the_section_shows_each_way_to_grade_at_scale(lang):
    kinds = [kind for kind, _ in blocks(lang)]
    codes = "\n".join(code for _, code in blocks(lang))
    assert kinds.count("yaml") == 2 and kinds.count("python") == 1 and kinds.count("bash") >= 2
    for needle in (
        "SLURMCluster",
        "kind: DaskCluster",
        "--scheduler",
        "matrix:",
        "--shard",
        "coursegen gradebook merge",
    ):
        assert needle in codes, needle


@pytest.mark.parametrize("lang", SECTIONS)
def test_yaml_examples_parse(lang):
    for kind, code in nonempty(blocks(lang)):
        if kind == "yaml":
            documents = list(YAML(typ="safe", pure=True).load_all(code))
            assert documents and all(isinstance(d, dict) for d in documents)


@pytest.mark.parametrize("lang", SECTIONS)
def test_python_examples_compile(lang):
    for kind, code in blocks(lang):
        if kind == "python":
            compile(code, f"{GUIDE}:{SECTIONS[lang]}", "exec")


@pytest.mark.parametrize("lang", SECTIONS)
def test_bash_examples_pass_bash_n(lang):
    for kind, code in nonempty(blocks(lang)):
        if kind == "bash":
            result = subprocess.run(["bash", "-n"], input=code, text=True, capture_output=True)
            assert result.returncode == 0, result.stderr


def grade_options() -> set[str]:
    from coursegen.cli import main

    return {name for param in main.commands["grade"].params for name in param.opts if name.startswith("--")}


@pytest.mark.parametrize("lang", SECTIONS)
def test_every_coursegen_grade_option_in_the_examples_exists(lang):
    known = grade_options() | {"-o"}
    text = "\n".join(code for _, code in blocks(lang)).replace("\\\n", " ")
    used = set()
    for line in text.splitlines():
        line = re.sub(r"\$\{\{[^}]*\}\}", "X", line)
        if "coursegen grade " in line:
            words = shlex.split(line[line.index("coursegen grade ") :], comments=True)
            used |= {w for w in words if w.startswith("-")}
        if '"coursegen", "grade"' in line:
            used |= set(re.findall(r'"(--[a-z-]+)"', line))
    # the GitHub Actions step folds its command over two lines (`run: >-`)
    used |= set(re.findall(r"^\s+(--[a-z-]+) ", text, flags=re.MULTILINE))
    assert {"--scheduler", "--shard", "--seed", "--gradebook"} <= used
    assert used <= known, f"options not in `coursegen grade --help`: {sorted(used - known)}"


def test_both_languages_carry_the_same_examples():
    en, zh = blocks("en"), blocks("zh")
    assert [k for k, _ in en] == [k for k, _ in zh]
    for (kind, a), (_, b) in nonempty(zip(en, zh)):
        assert comments_dropped(a, kind) == comments_dropped(b, kind)
