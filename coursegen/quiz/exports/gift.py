"""Moodle GIFT export.

Each question is `::name::[html]text{answers####general feedback}`. Text is HTML (math kept as
LaTeX in \\( \\)) with both languages in Moodle multi-language spans. Every GIFT special
character in text is escaped the way Moodle's own GIFT exporter does: `\\` -> `\\\\`, then
`~ = # { } :` get a backslash, and a newline becomes `\\n`.

The answers inside the braces are each question kind's (`gift` of coursegen.quiz.kinds): single
-> `{=right#fb ~wrong#fb}`; multiple -> weights `~%50%`, wrong options share -100%; true_false ->
`{TRUE#feedback if wrong#feedback if right}`; numeric -> `{#=answer:tolerance#fb =%0%wrong:0#fb}`
(a relative tolerance becomes the equivalent absolute one); shape and short -> short answer with
every accepted form; matching -> `{=left -> right ...}`.
"""

from __future__ import annotations

from .gift_markup import escape, html_text


def question(item: dict, quiz: str, student: str) -> str:
    name = escape(f"{quiz}/{item['id']}" + (f"/{student}" if student != "practice" else ""))
    from ..kinds import kind_of

    body = "\n".join(kind_of(item["type"]).gift(item))
    return f"::{name}::[html]{html_text(item['text'])}{{\n{body}\n####{html_text(item['explanation'])}\n}}\n"


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
