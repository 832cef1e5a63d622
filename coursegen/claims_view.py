"""The claims of a lesson on its page: each statement with the per-seed evidence the build checked.

`claims_html(lesson, section_id, lang, evidence)` is the HTML shown at the end of a section: the
claims placed there (`section:`, default the last section), each with its status, the check's
one-line summary and a table of every measure per seed with its spread (mean ± sd, min–max).
"""

from __future__ import annotations

import html
from typing import Any

from . import markdown
from .claims import Evidence, margin_text, spread
from .markdown import region_attributes

WORDS = {
    "en": {
        "heading": "What the runs show, checked by the build",
        "holds": "holds",
        "measure": "measure",
        "seed": "seed",
        "mean": "mean ± sd",
        "range": "min–max",
        "check": "check",
    },
    "zh": {
        "heading": "训练结果说明了什么（由构建验证）",
        "holds": "成立",
        "measure": "指标",
        "seed": "种子",
        "mean": "均值 ± 标准差",
        "range": "最小–最大",
        "check": "检查",
    },
}


def section_of(lesson: Any, claim: Any) -> str:
    return claim.section or lesson.sections[-1].id


def claims_html(lesson: Any, section_id: str, lang: str, evidence: dict[tuple[str, str], Evidence]) -> str:
    """The claims of `lesson` shown in section `section_id` ('' when there are none)."""
    words = WORDS.get(lang, WORDS["en"])
    items = []
    for claim in lesson.claims:
        if section_of(lesson, claim) != section_id or (lesson.id, claim.id) not in evidence:
            continue
        found = evidence[(lesson.id, claim.id)]
        items.append(
            f'<li class="claim" id="claim-{claim.id}">\n'
            f'<p class="claim-text"><span class="claim-status">✓ {words["holds"]}</span> '
            f"{markdown.render_inline(claim.text.get(lang))}</p>\n"
            f'<p class="claim-summary"><span class="claim-check">{words["check"]}: </span>'
            f"<code>{html.escape(_in(found.summary, lang) + margin_text(found, lang, prefix='; '))}</code></p>\n"
            f"{_table(found, lang, words)}</li>"
        )
    if not items:
        return ""
    heading_id = f"claims-{section_id}"
    return (
        f'<section class="claims" aria-labelledby="{heading_id}">\n'
        f'<h3 id="{heading_id}">{words["heading"]}</h3>\n<ol class="claim-list">\n'
        + "\n".join(items)
        + "\n</ol>\n</section>\n"
    )


def _table(found: Evidence, lang: str, words: dict[str, str]) -> str:
    if not found.rows:
        return ""
    head = "".join(f'<th scope="col">{words["seed"]} {seed}</th>' for seed in found.seeds)
    rows = []
    for row in found.rows:
        label = _in(row.label, lang)
        cells = "".join(f"<td>{value:.{row.decimals}f}</td>" for value in row.values)
        mean, extent = spread(row.values, row.decimals)
        rows.append(f'<tr><th scope="row">{html.escape(label)}</th>{cells}<td>{mean}</td><td>{extent}</td></tr>')
    return (
        f'<div class="table-scroll" {region_attributes("table")}>\n<table class="claim-evidence">\n'
        f'<thead><tr><th scope="col">{words["measure"]}</th>{head}<th scope="col">{words["mean"]}</th>'
        f'<th scope="col">{words["range"]}</th></tr></thead>\n<tbody>\n'
        + "\n".join(rows)
        + "\n</tbody>\n</table>\n</div>\n"
    )


def _in(text: str | dict[str, str], lang: str) -> str:
    return text if isinstance(text, str) else text.get(lang) or text["en"]
