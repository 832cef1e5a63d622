"""The evidence page of `coursegen similarity`: OUTDIR/index.html (English) and OUTDIR/zh/index.html
(Chinese), offline (no script, no network), one section per flagged pair (`#pair-<n>`, n from 1 in
the order of similarity.json's flagged pairs): the sentence that says why, the behavioural
evidence, and the two normalised programs side by side, definition beside definition, with the
token sequences they share marked (`<mark>`). Student names and code are escaped."""

from __future__ import annotations

from typing import Any

from markupsafe import escape

from grader.textsafe import display_name

from . import Analysis, Pair
from .normalise import units

TEXT: dict[str, dict[str, Any]] = {
    "en": {
        "title": "Similarity: the evidence",
        "lead": "Pairs of students whose code shares far more than independent students of this class share "
        "(after the stub, the course's catalogued mistakes and what most of the class writes are removed, and "
        "renaming, layout, comments, order and dead code are undone), and whose results on the same secret "
        "inputs agree. The code is shown normalised; marked parts are the same token sequence in both. "
        "This is evidence to read, not a verdict.",
        "calibration": "Class median {median}, flagged from {threshold} (robust z ≥ {z}); "
        "{flagged} of {pairs} pairs flagged; {students} students.",
        "clusters": "Clusters",
        "none": "No pair is flagged.",
        "pair": "Pair {n}",
        "behaviour": "Behaviour on the same inputs",
        "same": "Same result on {same} of {compared} checks.",
        "shared": "Shared wrong outputs no catalogued mistake explains",
        "check": "check",
        "kind": "kind",
        "given_by": "students giving it",
        "no_shared": "None: the agreement is on correct outputs (or catalogued mistakes), which says nothing by itself.",
        "code": "Normalised code",
        "module": "(module level)",
        "missing": "(not in this program)",
        "notes": "Not compared",
        "lang_link": "中文",
        "kinds": {"wrong value": "wrong value", "exception": "exception", "edge-case quirk": "edge-case quirk"},
    },
    "zh": {
        "title": "相似度：证据",
        "lead": "这些学生对的代码相同之处远多于本班独立完成的学生之间的相同之处（已去除桩代码、课程已编目的典型错误和大多数学生都会写的代码，"
        "并消除了改名、排版、注释、顺序和死代码），并且他们在相同的秘密输入上的结果一致。代码以规范化后的形式显示；"
        "标记的部分是两者中相同的 token 序列。这是供阅读的证据，不是结论。",
        "calibration": "全班中位数 {median}，从 {threshold} 起标记（稳健 z ≥ {z}）；{pairs} 对中有 {flagged} 对被标记；共 {students} 名学生。",
        "clusters": "群组",
        "none": "没有被标记的学生对。",
        "pair": "第 {n} 对",
        "behaviour": "在相同输入上的行为",
        "same": "{compared} 个检查中有 {same} 个结果相同。",
        "shared": "没有任何已编目错误能解释的共同错误输出",
        "check": "检查",
        "kind": "类型",
        "given_by": "给出它的学生数",
        "no_shared": "无：一致的是正确输出（或已编目错误），这本身说明不了什么。",
        "code": "规范化后的代码",
        "module": "（模块级）",
        "missing": "（此程序中没有）",
        "notes": "未比较",
        "lang_link": "English",
        "kinds": {"wrong value": "错误的值", "exception": "异常", "edge-case quirk": "边界情况的异常表现"},
    },
}

STYLE = """
body { font-family: system-ui, sans-serif; margin: 2rem auto; max-width: 90rem; padding: 0 1rem; color: #1a1a1a; }
table { border-collapse: collapse; width: 100%; }
td, th { border: 1px solid #ccc; padding: .3rem .5rem; vertical-align: top; text-align: left; }
pre { margin: 0; white-space: pre-wrap; font-size: .85rem; }
mark { background: #ffe08a; }
.code td { width: 50%; }
.why { font-weight: 600; }
section.pair { border-top: 2px solid #888; margin-top: 2rem; }
"""


def render_pages(analysis: Analysis) -> dict[str, str]:
    """{"index.html": English page, "zh/index.html": Chinese page}."""
    return {"index.html": _page(analysis, "en"), "zh/index.html": _page(analysis, "zh")}


def _page(analysis: Analysis, lang: str) -> str:
    t = TEXT[lang]
    flagged = analysis.flagged
    parts = [
        f'<!DOCTYPE html>\n<html lang="{"zh-CN" if lang == "zh" else "en"}">\n<head><meta charset="utf-8">',
        f"<title>{escape(t['title'])}</title><style>{STYLE}</style></head>\n<body>",
        f'<p><a href="{"../index.html" if lang == "zh" else "zh/index.html"}">{t["lang_link"]}</a></p>',
        f"<h1>{escape(t['title'])}</h1>",
        f"<p>{escape(t['lead'])}</p>",
        "<p>"
        + escape(
            t["calibration"].format(
                median=f"{analysis.median:.0%}",
                threshold=f"{analysis.threshold:.0%}",
                z=_z(),
                flagged=len(flagged),
                pairs=len(analysis.pairs),
                students=len(analysis.programs),
            )
        )
        + "</p>",
    ]
    if analysis.clusters:
        parts.append(f"<h2>{escape(t['clusters'])}</h2><ul>")
        for cluster in analysis.clusters:
            parts.append("<li>" + ", ".join(str(escape(display_name(s))) for s in cluster) + "</li>")
        parts.append("</ul>")
    if not flagged:
        parts.append(f"<p>{escape(t['none'])}</p>")
    for number, pair in enumerate(flagged, start=1):
        parts.append(_pair(pair, number, analysis, lang))
    notes = {s: p.note for s, p in sorted(analysis.programs.items()) if p.note}
    if notes:
        parts.append(f"<h2>{escape(t['notes'])}</h2><ul>")
        parts += [f"<li>{escape(display_name(s))}: {escape(display_name(n))}</li>" for s, n in notes.items()]
        parts.append("</ul>")
    parts.append("</body>\n</html>\n")
    return "\n".join(str(p) for p in parts)


def _z() -> str:
    from . import Z_ROBUST

    return f"{Z_ROBUST:g}"


def _pair(pair: Pair, number: int, analysis: Analysis, lang: str) -> str:
    t = TEXT[lang]
    a, b = pair.students
    seen = pair.behaviour
    out = [
        f'<section class="pair" id="pair-{number}">',
        f"<h2>{escape(t['pair'].format(n=number))}: {escape(display_name(a))} · {escape(display_name(b))} "
        f"({pair.score:.0%})</h2>",
        f'<p class="why">{escape(display_name(pair.why.get(lang, "")))}</p>',
        f"<h3>{escape(t['behaviour'])}</h3>",
        f"<p>{escape(t['same'].format(same=seen['same'], compared=seen['compared']))}</p>",
    ]
    if seen["shared"]:
        out.append(
            f"<table><caption>{escape(t['shared'])}</caption><tr><th>{t['check']}</th><th>{t['kind']}</th>"
            f"<th>{t['given_by']}</th></tr>"
        )
        for item in seen["shared"]:
            kind = t["kinds"].get(item["kind"], item["kind"])
            out.append(
                f"<tr><td><code>{escape(item['check'])}</code></td><td>{escape(kind)}</td>"
                f"<td>{item['students']} / {len(analysis.programs)}</td></tr>"
            )
        out.append("</table>")
    else:
        out.append(f"<p>{escape(t['no_shared'])}</p>")
    out.append(f"<h3>{escape(t['code'])}</h3>")
    out.append(f'<table class="code"><tr><th>{escape(display_name(a))}</th><th>{escape(display_name(b))}</th></tr>')
    left, right = analysis.programs[a].text, analysis.programs[b].text
    for mine, theirs in _aligned(left, right):
        out.append(
            "<tr><td>"
            + _code(left, mine, pair.slices[0], t)
            + "</td><td>"
            + _code(right, theirs, pair.slices[1], t)
            + "</td></tr>"
        )
    out.append("</table></section>")
    return "\n".join(out)


def _aligned(left: str, right: str) -> list[tuple[list[tuple[int, int]], list[tuple[int, int]]]]:
    """Rows of (left ranges, right ranges): module-level statements together, then definitions of
    one name side by side, in the left program's order, then the right program's others."""

    def split(text: str) -> tuple[list[tuple[int, int]], dict[str, list[tuple[int, int]]]]:
        loose: list[tuple[int, int]] = []
        named: dict[str, list[tuple[int, int]]] = {}
        for key, start, end in units(text) if text else []:
            (named.setdefault(key, []) if key else loose).append((start, end))
        return loose, named

    left_loose, left_named = split(left)
    right_loose, right_named = split(right)
    rows = [(left_loose, right_loose)] if left_loose or right_loose else []
    for key in [*left_named, *(k for k in right_named if k not in left_named)]:
        rows.append((left_named.get(key, []), right_named.get(key, [])))
    return rows


def _code(text: str, ranges: list[tuple[int, int]], marks: list[tuple[int, int]], t: dict) -> str:
    """The code of `ranges` of `text`, escaped, with `marks` marked."""
    if not ranges:
        return f"<em>{escape(t['missing'])}</em>"
    return "<pre>" + "\n\n".join(_marked(text, start, end, marks) for start, end in ranges) + "</pre>"


def _marked(text: str, start: int, end: int, marks: list[tuple[int, int]]) -> str:
    out, at = [], start
    for mark_start, mark_end in sorted(marks):
        s, e = max(mark_start, at), min(mark_end, end)
        if s >= e:
            continue
        out.append(str(escape(text[at:s])))
        out.append(f"<mark>{escape(text[s:e])}</mark>")
        at = e
    out.append(str(escape(text[at:end])))
    return "".join(out)
