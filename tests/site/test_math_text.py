"""Math as plain text for search (coursegen.mathtext via markdown.readable_math): what a reader
would write by hand, and, over every formula of the real course and of the fixture course, never
a LaTeX command name, a backslash or a brace."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from coursegen.markdown import plain_text, readable_math, spans
from coursegen.mathml import FUNCTION_NAMES, LIMIT_OPERATORS

REPO = Path(__file__).resolve().parents[2]
FIXTURE = Path(__file__).parent / "fixtures" / "mini"

# (LaTeX, the text a person writes for it), each written by hand.
BY_HAND = [
    (
        r"R(a) = \begin{pmatrix} \cos a & -\sin a \\ \sin a & \cos a \end{pmatrix}",
        "R(a) = [[cos a, -sin a], [sin a, cos a]]",
    ),
    (r"M = \begin{bmatrix} 1 & 2 & 3 \\ 4 & 5 & 6 \end{bmatrix}", "M = [[1, 2, 3], [4, 5, 6]]"),
    (r"\frac{1}{\sqrt{d}}", "1/√d"),
    (r"\frac{a + b}{2}", "(a + b)/2"),
    (r"p_i = \frac{e^{z_i}}{\sum_j e^{z_j}}", "p_i = e^(z_i)/(∑_j e^(z_j))"),
    (r"\theta_i = 10000^{-2i/d}", "θ_i = 10000^(-2i/d)"),
    (r"x_{2i+1}", "x_(2i+1)"),
    (r"\mathbb{R}^{V \times D}", "ℝ^(V × D)"),
    (r"q^\top k \le \lVert q \rVert", "q^⊤ k ≤ ‖q‖"),
    (r"\text{ids } [B, S] \xrightarrow{\text{lookup}} [B, S, D]", "ids [B, S] —lookup→ [B, S, D]"),
    (r"\operatorname{softmax}(x)_i", "softmax(x)_i"),
    (r"\sin(p\,\omega) + \cos 2", "sin(p ω) + cos 2"),
    (r"1{,}024 \cdot 3", "1,024 · 3"),
    (r"|i - j|", "|i - j|"),
    (r"\hat{y} = \log p", "ŷ = log p"),
    (r"q^\top R\big((j - t)\,\theta_i\big)\, k", "q^⊤ R((j - t) θ_i) k"),
    (r"\left(R(t\,\theta_i)\, q\right)^\top", "(R(t θ_i) q)^⊤"),
]


@pytest.mark.parametrize("latex, text", BY_HAND, ids=[t for _, t in BY_HAND])
def test_a_formula_reads_as_a_person_would_write_it(latex, text):
    assert readable_math(latex) == text


def test_a_sentence_keeps_formulas_apart_from_words_but_not_from_punctuation():
    assert plain_text(r"Rotate by $\theta$, then add $b$.") == "Rotate by θ, then add b."
    assert (
        plain_text("A matrix\n\n$$R = \\begin{pmatrix} 1 & 0 \\\\ 0 & 1 \\end{pmatrix}$$\n\nends.")
        == "A matrix R = [[1, 0], [0, 1]] ends."
    )


def course_formulas(root: Path) -> list[str]:
    """Every formula written in the course's YAML files (lessons and quizzes), found by the
    Markdown parser in each string value."""
    from ruamel.yaml import YAML

    found = []

    def walk(value):
        if isinstance(value, str):
            if "$" in value:
                found.extend(span.latex for span in spans(value)[0])
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    for path in sorted((root / "content").rglob("*.yaml")):
        walk(YAML(typ="safe").load(path.read_text(encoding="utf-8")))
    return [latex for latex in found if "{{" not in latex]  # quiz templates fill {{...}} first


def leaked_command_names(latex: str, text: str) -> set[str]:
    """Command names of `latex` (\\begin, \\frac, \\mathbb, ...) that appear as words in `text`,
    except function names meant to be read (sin, log) and words the formula also writes as text."""
    commands = set(re.findall(r"\\([A-Za-z]+)", latex))
    written = set(re.findall(r"[A-Za-z]+", re.sub(r"\\[A-Za-z]+", " ", latex)))
    words = set(re.findall(r"[A-Za-z]+", text))
    return (commands & words) - FUNCTION_NAMES - LIMIT_OPERATORS - written


@pytest.mark.parametrize("root", [REPO, FIXTURE], ids=["course", "fixture"])
def test_no_formula_of_a_course_leaks_latex_into_its_text(root):
    formulas = course_formulas(root)
    assert formulas
    problems = []
    for latex in formulas:
        text = readable_math(latex)
        if leaked_command_names(latex, text) or "\\" in text or re.search(r"[{}]", text.replace("\\{", "")):
            problems.append(f"{latex!r} -> {text!r}")
        if text.count("(") != text.count(")") or text.count("[") != text.count("]"):
            problems.append(f"unbalanced: {latex!r} -> {text!r}")
    assert problems == [], "\n".join(problems)


# Command names that are also English words (prose may say "the sum of" or "three times").
ENGLISH_WORDS = {
    "text",
    "in",
    "top",
    "left",
    "right",
    "end",
    "max",
    "min",
    "times",
    "sum",
    "partial",
    "approx",
    "le",
    "ge",
    "dots",
    "quad",
    "vert",
    "pi",
    "not",
    "to",
    "big",
}


def test_the_search_index_of_the_course_has_no_latex_command_names():
    from coursegen.loader import load_course
    from coursegen.search import search_entries

    commands = set()
    for latex in course_formulas(REPO):
        commands |= set(re.findall(r"\\([A-Za-z]+)", latex))
    commands -= FUNCTION_NAMES | LIMIT_OPERATORS | ENGLISH_WORDS
    entries = search_entries(load_course(REPO))
    problems = [
        f"{e['url']}: {name!r} in {e['text'][:120]!r}"
        for e in entries
        for name in commands
        if re.search(rf"(?<![A-Za-z]){name}(?![A-Za-z])", e["text"])
    ]
    assert "\\" not in " ".join(e["text"] for e in entries)
    assert problems == [], "\n".join(problems)
