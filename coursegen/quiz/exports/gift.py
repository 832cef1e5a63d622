"""Moodle GIFT export.

Each question is `::name::[html]text{answers####general feedback}`. Text is HTML (math kept as
LaTeX in \\( \\)) with both languages in Moodle multi-language spans. Every GIFT special
character in text is escaped the way Moodle's own GIFT exporter does: `\\` -> `\\\\`, then
`~ = # { } :` get a backslash, and a newline becomes `\\n`.

Mapping: single -> `{=right#fb ~wrong#fb}`; multiple -> weights `~%50%`, wrong options share
-100%; true_false -> `{TRUE#feedback if wrong#feedback if right}`; numeric -> `{#=answer:tolerance#fb
=%0%wrong:0#fb}` (a relative tolerance becomes the equivalent absolute one); shape and short ->
short answer with every accepted form; matching -> `{=left -> right ...}`.
"""

from __future__ import annotations

from ..text import html_tex, moodle_multilang
from ..variants import tolerance_of
from .forms import fraction, shape_forms

SPECIAL = "~=#{}:"


def escape(text: str) -> str:
    text = text.replace("\\", "\\\\")
    for char in SPECIAL:
        text = text.replace(char, "\\" + char)
    return text.replace("\r", "").replace("\n", "\\n")


def _html(text: dict, inline: bool = False) -> str:
    return escape(moodle_multilang(text, lambda s: html_tex(s, inline=inline)))


def _margin(tol, value: float) -> float:
    """The absolute tolerance around `value` (a relative tolerance scales with it)."""
    return tol.abs if tol.abs is not None else tol.rel * abs(value)


def _answers(item: dict) -> list[str]:
    kind = item["type"]
    if kind == "single":
        return [
            f"{'=' if o['correct'] else '~'}{_html(o['text'], True)}#{_html(o['feedback'], True)}"
            for o in item["options"]
        ]
    if kind == "multiple":
        right = sum(o["correct"] for o in item["options"])
        wrong = len(item["options"]) - right
        out = []
        for o in item["options"]:
            weight = fraction(100 / right) if o["correct"] else fraction(-100 / wrong)
            out.append(f"~%{weight}%{_html(o['text'], True)}#{_html(o['feedback'], True)}")
        return out
    if kind == "true_false":
        truth = item["options"][0]["correct"]
        right = next(o for o in item["options"] if o["correct"])["feedback"]
        wrong = next(o for o in item["options"] if not o["correct"])["feedback"]
        return [f"{'TRUE' if truth else 'FALSE'}#{_html(wrong, True)}#{_html(right, True)}"]
    if kind == "numeric":
        tol = tolerance_of(item)
        margin = tol.abs if tol.abs is not None else tol.rel * abs(item["answer"])
        out = [f"#={item['answer']!r}:{margin!r}#{_html(item['feedback'], True)}"]
        out += [f"=%0%{w['value']!r}:{_margin(tol, w['value'])!r}#{_html(w['feedback'], True)}" for w in item["wrong"]]
        return out
    if kind == "shape":
        out = [f"={escape(form)}#{_html(item['feedback'], True)}" for form in shape_forms(item["answer"])]
        out += [
            f"=%0%{escape(form)}#{_html(w['feedback'], True)}"
            for w in item["wrong"]
            for form in shape_forms(w["value"])[:1]
        ]
        return out
    if kind == "short":
        out = [f"={escape(form)}#{_html(item['feedback'], True)}" for form in item["accepted"]]
        out += [f"=%0%{escape(w['value'])}#{_html(w['feedback'], True)}" for w in item["wrong"]]
        return out
    if kind == "matching":
        return [
            f"={_html(p['left'], True)} -> {_html(item['choices'][item['answer'][k]], True)}"
            for k, p in enumerate(item["pairs"])
        ]
    raise ValueError(f"unknown question type {kind!r}")


def question(item: dict, quiz: str, student: str) -> str:
    name = escape(f"{quiz}/{item['id']}" + (f"/{student}" if student != "practice" else ""))
    body = "\n".join(_answers(item))
    return f"::{name}::[html]{_html(item['text'])}{{\n{body}\n####{_html(item['explanation'])}\n}}\n"


def render(variants: list[dict]) -> str:
    parts = [
        "// coursegen quiz export (GIFT). Math is LaTeX in \\( \\); enable Moodle's MathJax or TeX filter,",
        "// and the multi-language content filter for the English / Chinese spans.",
        "",
    ]
    for variant in variants:
        parts.append(
            f"$CATEGORY: $course$/coursegen/{variant['quiz']}"
            + (f"/{variant['student']}" if variant["student"] != "practice" else "")
        )
        parts.append("")
        for item in variant["questions"]:
            parts.append(question(item, variant["quiz"], variant["student"]))
    return "\n".join(parts)
