"""One reveal.js deck per lesson and language, made from the lesson itself.

    render_deck(loaded, lesson, lang, staging, env, variant=None)   # one deck (the build's unit of a
                                     # lesson's decks: coursegen/outputs/decks.py, fitted by slides/fit.py)
    deck_slides(loaded, lesson, lang, env, variant=None) -> [SlideView]   # what the template shows

The deck of lesson L in language X is `<staging>/X/slides/L.html`. Its slides, in order:
a title slide (title, summary, objectives); the sections, one or more slides each (the blocks'
`slide:` options of the lesson YAML, else the default split of coursegen.slides.split: the gist on
the slide, the whole text in the speaker notes; a code example or a figure gets a slide of its own;
text that would not fit continues on the next slide); the key terms; the exercise statements; the
quiz's questions (the IN_CLASS variant), each answer and its feedback a fragment shown on the next
key press. Markdown, math (MathML), code highlighting, example outputs and figures are the site's
own (coursegen.site, `env.globals`), so a deck never disagrees with its lesson page.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from pathlib import Path

from .. import markdown
from ..quiz.kinds import kind_of
from ..schema import CodeBlock, FigureBlock, Language, Lesson, NoteBlock, SlideOptions, TextBlock
from .split import gist, visible_length

# Slide budget: about this many lines of body text fit under a title at 1280x720.
LINES_PER_SLIDE = 10
CHARS_PER_LINE = {"en": 62, "zh": 32}
TERMS_PER_SLIDE = 4
ANSWER_KEY = "A"

UI: dict[str, dict[str, str]] = {
    "en": {
        "present": "Present this lesson",
        "present_short": "Slides",
        "slides": "Slides",
        "deck_label": "Slides of the lesson",
        "read_lesson": "Read the lesson page",
        "continued": "continued",
        "key_terms": "Key terms",
        "exercises": "Exercises",
        "exercise_word": "Exercise",
        "questions": "Questions",
        "question": "Question {n} of {total}",
        "answer": "Answer",
        "explanation": "Why",
        "answer_hint": "Press → or A to show the answer.",
        "if_chosen": "If someone answers {answer}",
        "output": "Output",
        "keys": "Keys: → / ← next and back, S speaker view with notes, O overview, F full screen, "
        "A shows a question's answer.",
        "points": "pt",
        "pairs": "Matching",
        "goals": "Goals of this lesson",
        "speaker_notes": "Speaker notes",
        "part": "Part {n} of {total}",
        "summary": "What to remember",
        "results": "Results: checked on every seed",
        "backup": "Backup: more results",
        "backup_part": "For questions: every run below was checked on every seed by the build",
    },
    "zh": {
        "present": "演示本课",
        "present_short": "幻灯片",
        "slides": "幻灯片",
        "deck_label": "本课的幻灯片",
        "read_lesson": "阅读本课页面",
        "continued": "续",
        "key_terms": "关键术语",
        "exercises": "练习",
        "exercise_word": "练习",
        "questions": "课堂提问",
        "question": "第 {n} 题（共 {total} 题）",
        "answer": "答案",
        "explanation": "解析",
        "answer_hint": "按 → 键或 A 键显示答案。",
        "if_chosen": "如果有人回答 {answer}",
        "output": "输出",
        "keys": "按键：→ / ← 前进与后退，S 演讲者视图（含备注），O 总览，F 全屏，A 显示题目答案。",
        "points": "分",
        "pairs": "配对",
        "goals": "本课目标",
        "speaker_notes": "演讲者备注",
        "part": "第 {n} 部分（共 {total} 部分）",
        "summary": "要点回顾",
        "results": "结果：每个种子都已验证",
        "backup": "备用：更多结果",
        "backup_part": "答疑备用：以下每项都由构建在每个种子上验证",
    },
}


@dataclass
class SlideView:
    id: str
    kind: str  # title | goals | section | content | code | figure | results | terms | exercise | question | answer | summary
    title: str  # inline HTML
    body: list[str] = field(default_factory=list)  # HTML pieces, in order
    notes: list[str] = field(default_factory=list)  # HTML of the speaker notes
    dense: bool = False  # smaller type: more text than the budget
    weight: float = 0.0  # px of body the slide holds (estimated or measured)
    fit: int = 0  # shrink level chosen by the layout check (0: none)
    origin: tuple = ()  # where in the lesson YAML the slide's first block is
    code_key: str = ""  # the code block split over this slide, if any
    piece_keys: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)  # Markdown of each body piece ("" for non-text)
    parts_key: str = ""  # the key in Plan.parts of the text this slide is one part of (exercise statements)


@dataclass
class Plan:
    """What the layout check learnt about a lesson's deck, for the next rendering (both languages)."""

    heights: dict[str, float] = field(default_factory=dict)  # body piece -> px measured (max over languages)
    code_lines: dict[str, int] = field(default_factory=dict)  # code block -> lines per slide
    fit: dict[str, int] = field(default_factory=dict)  # slide id -> shrink level
    parts: dict[str, int] = field(default_factory=dict)  # text piece -> how many slides it is split over
    answer_apart: set[str] = field(default_factory=set)  # question slide ids whose answer gets a slide
    breaks: set[str] = field(default_factory=set)  # body pieces that start a new slide


# The body of a slide under its title: px on the 1280x720 canvas (measured room ~620, kept short of it).
BODY_PX = 590.0
LINE_PX = 42.0  # one line of body text (30 px type, line height 1.38)
CODE_LINE_PX = 26.6  # one line of code (19 px, line height 1.4)
CODE_CHROME_PX = 40.0  # a code block's padding, border and margin
FIT_LEVELS = 3  # shrink steps: 0.92, 0.85, 0.8 of the type (the floor: 24 px text, 16 px code)
FIT_SCALES = {0: 1.0, 1: 0.92, 2: 0.85, 3: 0.8}


def _md(source: str) -> str:
    """Block HTML of Markdown on a deck page (`<lang>/slides/`): links go one folder up."""
    from ..pages import render_markdown

    return render_markdown(source, "../")


def _lines(source: str, lang: str) -> float:
    """Roughly how many lines a Markdown block takes on a slide."""
    per_line = CHARS_PER_LINE.get(lang, CHARS_PER_LINE["en"])
    if source.lstrip().startswith("$$"):
        return 2.0
    if source.lstrip().startswith(("```", "~~~", "    ")):
        return 0.8 * (source.count("\n") + 1)
    if source.lstrip().startswith("|"):
        return 1.2 * (source.count("\n") + 1)
    rows = [row for row in source.split("\n") if row.strip()]
    items = [row for row in rows if re.match(r"^\s*([-*+]|\d+[.)])\s", row)] or rows[:1]
    text = visible_length(source)
    return max(len(items), 1) * 0.3 + max(1.0, text / per_line)


def _ends_sentence(source: str) -> bool:
    """Whether a Markdown block ends a sentence (or is a formula, list, table or heading)."""
    text = source.rstrip()
    if not text or text.startswith(("$$", "#", "|", "-", "*", "```")) or re.match(r"\d+[.)]\s", text):
        return True
    return text.endswith((".", "!", "?", "。", "！", "？", ")", "）", "$$"))


def _is_lead_in(source: str) -> bool:
    """A paragraph that introduces what follows it ("... changes the base instead:")."""
    text = source.rstrip()
    return bool(text) and not text.startswith(("$$", "#", "|", "```")) and text.endswith((":", "："))


# A language whose slide bullets are phrases without a closing full stop (slide Chinese).
BULLET_FULL_STOP = {"zh": "。"}
_INNER_LI = re.compile(r"(<li\b[^>]*>)((?:(?!<li\b).)*?)(</li>)", re.S)
_SENTENCE_END = re.compile(r"[。！？]")


def bullet_phrases(piece: str, lang: str) -> str:
    """Slide Chinese: a list item that is one sentence loses its closing full stop ("。"), as a
    bullet is a phrase; an item of several sentences is left as written (the author gives the
    slide a `slide: text` of short phrases instead)."""
    stop = BULLET_FULL_STOP.get(lang)
    if not stop or "<li" not in piece:
        return piece

    def phrase(match: re.Match) -> str:
        opening, inner, closing = match.groups()
        text = re.sub(r"<[^>]+>", "", re.sub(r"<math\b.*?</math>", "x", inner, flags=re.S)).strip()
        if not text.endswith(stop) or len(_SENTENCE_END.findall(text)) != 1:
            return match.group(0)
        cut = inner.rfind(stop)
        return opening + inner[:cut] + inner[cut + len(stop) :] + closing

    return _INNER_LI.sub(phrase, piece)


def _fragment(piece: str) -> str:
    """Make every list item of `piece` a fragment, or else the whole piece."""
    if "<li>" in piece:
        return piece.replace("<li>", '<li class="fragment">')
    return f'<div class="fragment">{piece}</div>'


def _piece(key: str, inner: str) -> str:
    return f'<div class="piece" data-piece="{key}">{inner}</div>'


def _split_text(source: str, lang: str, parts: int) -> list[str]:
    """A list or paragraph in `parts` pieces of about equal length, at item or sentence ends
    (never inside math, code or after an abbreviation): the same count in every language."""
    from .split import sentences

    rows = source.split("\n")
    item_starts = [i for i, row in enumerate(rows) if re.match(r"^([-*+]|\d+[.)])\s", row)]
    if len(item_starts) >= 2:
        items = ["\n".join(rows[a:b]) for a, b in zip(item_starts, item_starts[1:] + [len(rows)])]
        head = "\n".join(rows[: item_starts[0]])
        units = ([head] if head.strip() else []) + items
        joiner = "\n"
    else:
        units = sentences(source, lang)
        joiner = " " if lang != "zh" else ""
    parts = max(1, min(parts, len(units)))
    total = sum(len(unit) for unit in units) or 1
    groups: list[list[str]] = [[] for _ in range(parts)]
    done = 0
    for unit in units:
        index = min(parts - 1, int(done * parts / total))
        groups[index].append(unit)
        done += len(unit)
    return [joiner.join(group).strip() for group in groups if group]


def splittable(source: str, lang: str) -> bool:
    """Whether a piece can be split over slides: a list of two items or more, or a paragraph of
    two sentences or more (a formula, table or code block cannot)."""
    from .split import sentences

    text = source.strip()
    if not text or text.startswith(("$$", "|", "```", "~~~", "#")):
        return False
    if len(re.findall(r"^([-*+]|\d+[.)])\s", text, re.M)) >= 2:
        return True
    return len(sentences(text, lang)) >= 2


def _statement_units(statement: str, lang: str) -> list[str]:
    """An exercise statement's Markdown blocks, a list's items each a unit of its own: where the
    statement may go on over a continued slide."""
    units: list[str] = []
    for block in gist(statement, lang, whole=True)["blocks"]:
        rows = block.split("\n")
        starts = [i for i, row in enumerate(rows) if re.match(r"^([-*+]|\d+[.)])\s", row)]
        if len(starts) >= 2 and starts[0] == 0:
            units += ["\n".join(rows[a:b]) for a, b in zip(starts, starts[1:] + [len(rows)])]
        else:
            units.append(block)
    return units


def _groups(sizes: list[float], parts: int) -> list[list[int]]:
    """The indices of units of `sizes` in `parts` consecutive non-empty groups of about equal size
    (parts <= len(sizes))."""
    groups: list[list[int]] = []
    total = sum(sizes) or 1.0
    done = 0.0
    for position, size in enumerate(sizes):
        must_start = len(sizes) - position == parts - len(groups)
        if not groups or must_start or (len(groups) < parts and done >= total * len(groups) / parts):
            groups.append([])
        groups[-1].append(position)
        done += size
    return groups


def _joined(units: list[str]) -> list[str]:
    """Consecutive list items back into one list; every other unit a block of its own."""
    blocks: list[str] = []
    for unit in units:
        item = bool(re.match(r"^([-*+]|\d+[.)])\s", unit))
        if item and blocks and re.match(r"^([-*+]|\d+[.)])\s", blocks[-1]):
            blocks[-1] += "\n" + unit
        else:
            blocks.append(unit)
    return blocks


class _Builder:
    def __init__(self, lesson: Lesson, lang: Language, env, plan: Plan, languages: list[Language]) -> None:
        self.lesson, self.lang, self.env, self.plan = lesson, lang, env, plan
        self.languages = languages or [lang]
        self.slides: list[SlideView] = []
        self.ids: set[str] = set()
        self.ui = UI[lang]
        self._figure_caption_notes: list[str] = []

    def new(self, kind: str, title: str, base_id: str, origin: tuple = ()) -> SlideView:
        slide_id, n = base_id, 2
        while slide_id in self.ids:
            slide_id, n = f"{base_id}-{n}", n + 1
        self.ids.add(slide_id)
        slide = SlideView(slide_id, kind, title, origin=origin, fit=self.plan.fit.get(slide_id, 0))
        self.slides.append(slide)
        return slide

    def _pieces(self, block, options: SlideOptions, key: str) -> tuple[dict[str, list[str]], list[str]]:
        """The Markdown pieces of a text or note block per language (the same count in each) and
        their keys: `<block>.<n>`, and `<block>.<n>p<j>` for the parts of a piece split over slides."""
        found: dict[str, list[str]] = {}
        keys: list[str] = []
        for lang in self.languages:
            source = options.text.get(lang) if options.text else block.get(lang)
            pieces = gist(source, lang, whole=True)["blocks"]
            split: list[str] = []
            keys = []
            for number, piece in enumerate(pieces):
                parts = self.plan.parts.get(f"{key}.{number}", 1)
                shown = _split_text(piece, lang, parts) if parts > 1 else [piece]
                split += shown
                keys += [f"{key}.{number}"] + [f"{key}.{number}p{j}" for j in range(1, len(shown))]
            found[lang] = split
        counts = {len(pieces) for pieces in found.values()}
        if len(counts) > 1:  # the languages' Markdown differs in blocks: one piece each, same structure
            found = {lang: ["\n\n".join(pieces)] for lang, pieces in found.items()}
            keys = [f"{key}.0"]
        return found, keys

    def _weight(self, key: str, by_lang: dict[str, list[str]], number: int) -> float:
        if key in self.plan.heights:
            return self.plan.heights[key]
        return max(_lines(pieces[number], lang) for lang, pieces in by_lang.items()) * LINE_PX

    def section(self, section, section_index: int) -> None:
        lang = self.lang
        title = markdown.render_inline(section.title.get(lang))
        continued = f'{title} <span class="continued">({self.ui["continued"]})</span>'
        current: SlideView | None = None  # the section's latest slide

        def content_slide(kind: str, origin: tuple, own_title: str | None = None) -> SlideView:
            nonlocal current
            shown = own_title if own_title is not None else continued if current is not None else title
            previous = current
            current = self.new(kind, shown, f"s-{section.id}", origin)
            # A lead-in closing the previous slide goes with what it introduces.
            if previous is not None and previous.sources and _is_lead_in(previous.sources[-1]):
                current.body.append(previous.body.pop())
                current.sources.append(previous.sources.pop())
                moved = previous.piece_keys.pop()
                current.piece_keys.append(moved)
                weight = self.plan.heights.get(moved, LINE_PX * 2)
                previous.weight -= weight
                current.weight += weight
                if not previous.body:  # it held only the lead-in: the new slide takes its place
                    self.slides.remove(previous)
                    self.ids.discard(current.id)
                    current.id, current.title, current.origin = previous.id, previous.title, previous.origin
                    current.fit = self.plan.fit.get(current.id, 0)
            return current

        for block_index, block in enumerate(section.blocks):
            origin = ("sections", section_index, "blocks", block_index)
            key = f"{section.id}.{block_index}"
            options = block.slide or SlideOptions()
            if options.show == "omit":
                continue
            extra_notes = [_md(options.notes.get(lang))] if options.notes else []
            forced_title = markdown.render_inline(options.title.get(lang)) if options.title else None
            if isinstance(block, (TextBlock, NoteBlock)):
                source = block.get(lang)
                if options.show == "notes":
                    target = current or content_slide("content", origin)
                    target.notes += [_md(source), *extra_notes]
                    continue
                by_lang, keys = self._pieces(block, options, key)
                pieces = by_lang[lang]
                weights = [self._weight(k, by_lang, n) for n, k in enumerate(keys)]
                if options.columns and current is not None and current.body:
                    # beside the previous block: two columns on its slide
                    inner = "".join(_md(piece) for piece in pieces)
                    current.body[-1] = (
                        f'<div class="columns"><div class="column">{current.body[-1]}</div>'
                        f'<div class="column">{_piece(keys[0], inner)}</div></div>'
                    )
                    current.sources[-1] = ""
                    current.notes += ([_md(source)] if options.text else []) + extra_notes
                    continue
                if (
                    current is None
                    or options.new
                    or current.kind != "content"
                    or (current.weight and current.weight + weights[0] > BODY_PX)
                    or (current.body and keys[0] in self.plan.breaks)
                ):
                    content_slide("content", origin, own_title=forced_title)
                assert current is not None
                current.notes += ([_md(source)] if options.text else []) + extra_notes
                for number, (piece, weight, piece_key) in enumerate(zip(pieces, weights, keys)):
                    slide = current
                    if slide.body and (slide.weight + weight > BODY_PX or piece_key in self.plan.breaks):
                        slide = content_slide("content", origin)
                    rendered = _md(piece)
                    shown = _fragment(rendered) if options.incremental else rendered
                    if isinstance(block, NoteBlock):
                        shown = f'<aside class="note note-{block.style}">{shown}</aside>'
                    slide.body.append(_piece(piece_key, shown))
                    slide.sources.append(piece)
                    slide.piece_keys.append(piece_key)
                    slide.weight += weight
            elif options.show == "notes":  # a code example or figure the speaker only mentions
                target = current or content_slide("content", origin)
                if isinstance(block, CodeBlock):
                    target.notes.append(self.code(block, block.code, incremental=False))
                else:
                    target.notes.append(f"<p>{markdown.render_inline(block.caption.get(lang))}</p>")
                target.notes += extra_notes
            elif isinstance(block, CodeBlock):
                self.code_slides(block, options, key, origin, forced_title, extra_notes, content_slide)
            elif isinstance(block, FigureBlock):
                figure = self.figure(block, len(self.slides))
                if options.columns and current is not None and current.body:
                    current.body[-1] = (
                        f'<div class="columns"><div class="column">{current.body[-1]}</div>'
                        f'<div class="column">{figure}</div></div>'
                    )
                    current.sources[-1] = ""
                    current.kind = "figure"
                else:
                    slide = content_slide("figure", origin, own_title=forced_title)
                    slide.body.append(figure)
                    slide.sources.append("")
                    slide.piece_keys.append("")
                holder = current or self.slides[-1]
                holder.notes += self._figure_caption_notes
                holder.notes.append(f"<p>{html.escape(block.alt.get(lang))}</p>")
                holder.notes += extra_notes
        for slide in self.slides:
            slide.dense = slide.weight > BODY_PX

    def code_slides(self, block: CodeBlock, options: SlideOptions, key, origin, forced_title, extra_notes, new_slide):
        """A code example on one slide, or on several ("continued") when it is too long; with
        `lines` only those lines (the whole code in the notes); with `highlight`, steps."""
        from ..schema import line_numbers

        lines = block.code.rstrip("\n").split("\n")
        shown_numbers = line_numbers(options.lines) if options.lines else list(range(1, len(lines) + 1))
        outputs = self.env.globals.get("example_outputs", {})
        output = outputs.get((self.lesson.id, block.id)) if block.show_output else None
        output_lines = output.rstrip("\n").count("\n") + 1 if output else 0
        room = BODY_PX - CODE_CHROME_PX - (40 if block.caption else 0)
        fit_all = int(room // CODE_LINE_PX)
        per_slide = self.plan.code_lines.get(key) or max(6, fit_all)
        last_room = max(4, per_slide - (output_lines + 2 if output else 0))
        chunks: list[list[int]] = []
        remaining = list(shown_numbers)
        while remaining:
            if len(remaining) <= last_room:
                chunks.append(remaining)
                break
            take = min(per_slide, len(remaining) - 1) if len(remaining) <= per_slide else per_slide
            chunks.append(remaining[:take])
            remaining = remaining[take:]
        for number, chunk in enumerate(chunks):
            last = number == len(chunks) - 1
            slide = new_slide("code", origin, own_title=forced_title if number == 0 else None)
            slide.code_key = key
            slide.body.append(
                self.code(
                    block,
                    "\n".join(lines[n - 1] for n in chunk),
                    incremental=options.incremental,
                    numbers=chunk,
                    steps=[  # the author's steps, each on the slide that holds its lines
                        ",".join(str(n) for n in line_numbers(step) if n in chunk)
                        for step in options.highlight or []
                        if any(n in chunk for n in line_numbers(step))
                    ],
                    with_output=last,
                    with_caption=number == 0,
                )
            )
            slide.sources.append("")
            slide.piece_keys.append("")
            slide.notes += extra_notes if number == 0 else []
        if options.lines or len(chunks) > 1:
            slide.notes.append(self.code(block, block.code, incremental=False, with_output=False))

    def code(
        self,
        block: CodeBlock,
        code: str,
        *,
        incremental: bool,
        numbers: list[int] | None = None,
        steps: list[str] | None = None,
        with_output: bool = True,
        with_caption: bool = True,
    ) -> str:
        """The code (its lines numbered as in the lesson), its caption and output. `steps`:
        line highlights stepping through it, one key press each (reveal fragments)."""
        from ..schema import line_numbers

        outputs = self.env.globals.get("example_outputs", {})
        output = outputs.get((self.lesson.id, block.id)) if block.show_output and with_output else None
        highlighted = markdown.highlight_code(code.rstrip("\n") + "\n", "python", "")
        if numbers is not None:
            head, _, rest = highlighted.partition("<code>")
            inner, _, tail = rest.rpartition("</code>")
            rows = inner.rstrip("\n").split("\n")
            shown = []
            for index, (number, row) in enumerate(zip(numbers, rows)):
                if index and number != numbers[index - 1] + 1:  # lines left out (they are in the notes)
                    shown.append('<span class="code-gap" aria-hidden="true">⋯</span>')
                shown.append(f'<span class="code-line" data-line="{number}">{row}</span>')
            inner = "\n".join(shown)
            highlighted = f"{head}<code>{inner}\n</code>{tail}"
        step_marks = "".join(
            f'<span class="fragment line-step" data-lines="{",".join(str(n) for n in line_numbers(step))}"></span>'
            for step in steps or []
        )
        caption = (
            f"<figcaption>{markdown.render_inline(block.caption.get(self.lang))}</figcaption>"
            if block.caption and with_caption
            else ""
        )
        out = ""
        if output:
            out = (
                f'<div class="output{" fragment" if incremental else ""}">'
                f'<span class="output-label" aria-hidden="true">{html.escape(self.ui["output"])}</span>'
                f'<pre role="group" data-region="output"><samp>{html.escape(output)}</samp></pre></div>'
            )
        return f'<figure class="example">{caption}{highlighted}{step_marks}{out}</figure>'

    def figure(self, block: FigureBlock, number: int) -> str:
        """The figure filling its slide, under a one-line caption: the slide's own `text`, else
        the caption's first sentence (the whole caption goes into the notes)."""
        from ..pages import accessible_svg
        from .split import sentences

        # the deck rendition (sized for a slide), else the page's figure
        decks, pages = self.env.globals.get("deck_figure_svgs", {}), self.env.globals.get("figure_svgs", {})
        svg = decks.get((self.lesson.id, block.id)) or pages.get((self.lesson.id, block.id), "")
        alt = block.alt.get(self.lang)
        options = block.slide or SlideOptions()
        full = block.caption.get(self.lang)
        short = options.text.get(self.lang) if options.text else (sentences(full, self.lang) or [full])[0]
        caption = markdown.render_inline(short)
        image = accessible_svg(svg, f"slide-fig-{block.id}", alt)
        self._figure_caption_notes = [] if short == full else [f"<p>{markdown.render_inline(full)}</p>"]
        return (
            f'<figure class="figure"><div class="figure-image">{image}</div><figcaption>{caption}</figcaption></figure>'
        )

    def results(self, section_id: str | None, evidence: dict) -> None:
        """A slide per claim shown after this section (`deck: section`), or with `section_id`
        None per backup claim (`deck: backup`): the statement and its per-seed table."""
        from ..claims_view import WORDS, _table, section_of

        words = WORDS.get(self.lang, WORDS["en"])
        for number, claim in enumerate(self.lesson.claims):
            if (self.lesson.id, claim.id) not in evidence:
                continue
            if section_id is None:
                if claim.deck != "backup":
                    continue
            elif claim.deck == "backup" or section_of(self.lesson, claim) != section_id:
                continue
            found = evidence[(self.lesson.id, claim.id)]
            slide = self.new("results", html.escape(self.ui["results"]), f"results-{claim.id}", ("claims", number))
            slide.body.append(
                f'<p class="claim-text"><span class="claim-status">✓ {html.escape(words["holds"])}</span> '
                f"{markdown.render_inline(claim.text.get(self.lang))}</p>{_table(found, self.lang, words)}"
            )

    def key_terms(self) -> None:
        terms = self.lesson.key_terms
        for start in range(0, len(terms), TERMS_PER_SLIDE):
            title = self.ui["key_terms"]
            if start:
                title += f' <span class="continued">({self.ui["continued"]})</span>'
            slide = self.new("terms", title, "key-terms")
            rows = []
            for term in terms[start : start + TERMS_PER_SLIDE]:
                name = markdown.render_inline(term.term.get(self.lang))
                if self.lang != "en":
                    name += f' <span class="term-en" lang="en">({html.escape(term.term.en)})</span>'
                definition = term.definition.get(self.lang)
                found = gist(definition, self.lang, whole=True)
                rows.append(f"<dt>{name}</dt><dd>{''.join(_md(p) for p in found['blocks'])}</dd>")
                if found["shortened"]:
                    slide.notes.append(f"<p><strong>{name}</strong></p>{_md(definition)}")
            slide.body.append(f'<dl class="terms">{"".join(rows)}</dl>')

    def exercises(self) -> None:
        for index, exercise in enumerate(self.lesson.exercises):
            key = f"exercise-{exercise.name}"
            title = f"{self.ui['exercise_word']}: <code>{html.escape(exercise.name)}</code>"
            units = {lang: _statement_units(exercise.statement.get(lang), lang) for lang in self.languages}
            parts = min(self.plan.parts.get(key, 1), *(len(found) for found in units.values()))
            counts = {len(found) for found in units.values()}
            if len(counts) == 1:  # the same items in every language: the same slides hold them
                sizes = [
                    max(len(found[i]) / max(1, len("".join(found))) for found in units.values())
                    for i in range(len(units[self.lang]))
                ]
            else:
                sizes = [float(len(unit)) for unit in units[self.lang]]
            groups = [[units[self.lang][i] for i in group] for group in _groups(sizes, parts)]
            for number, group in enumerate(groups):
                shown = title if number == 0 else f'{title} <span class="continued">({self.ui["continued"]})</span>'
                slide = self.new("exercise", shown, key, ("exercises", index))
                slide.parts_key = key
                slide.body.append("".join(_md(unit) for unit in _joined(group)))
            if gist(exercise.statement.get(self.lang), self.lang, whole=True)["shortened"]:
                slide.notes.append(_md(exercise.statement.get(self.lang)))  # what a nested list lost

    def question(self, view: dict, key: dict, total: int) -> None:
        if True:
            title = html.escape(self.ui["question"].format(n=view["number"], total=total))
            slide = self.new("question", title, f"question-{view['id']}", ("quiz",))
            body = [f'<div class="question-text">{view["text"]}</div>']
            answer: list[str] = []
            notes: list[str] = []
            parts = kind_of(view["type"]).deck(view, key, self.ui)
            body += parts.body
            answer += parts.answer
            notes += parts.notes
            answer.append(
                f'<div class="question-explanation"><p><strong>{self.ui["explanation"]}</strong></p>'
                f"{view['explanation']}</div>"
            )
            answer_html = f'<div class="question-answer fragment" data-answer="{view["id"]}">{"".join(answer)}</div>'
            if slide.id in self.plan.answer_apart:  # too much for one slide: the answer on the next
                slide.body += body
                slide.notes += notes
                apart = self.new(
                    "answer", f"{title}: {html.escape(self.ui['answer'])}", f"answer-{view['id']}", ("quiz",)
                )
                apart.fit = self.plan.fit.get(apart.id, 0)
                apart.body.append(answer_html.replace(" fragment", ""))
                apart.notes.append("".join(answer))
                return
            body.append(f'<p class="answer-hint">{html.escape(self.ui["answer_hint"])}</p>')
            body.append(answer_html)
            slide.body += body
            slide.notes += ["".join(answer), *notes]


def _words(text: str) -> set[str]:
    text = re.sub(r"<[^>]+>", " ", text)
    return {word for word in re.findall(r"[a-z][a-z0-9_-]{3,}", text.lower())}


def question_sections(lesson: Lesson, variant: dict | None) -> dict[str, str]:
    """{question id: the section it is asked after}: the section whose English prose shares the
    most distinctive words with the question (its text, options and explanation); ties go to the
    later section. The same for every language (the English is the reference)."""
    import math

    if not variant:
        return {}
    if lesson.in_class_questions == "end":
        return {item["id"]: "" for item in variant["questions"]}
    section_words = []
    for section in lesson.sections:
        text = section.title.en + " " + section.id.replace("-", " ")
        for block in section.blocks:
            if isinstance(block, (TextBlock, NoteBlock)):
                text += " " + block.en
            elif isinstance(block, CodeBlock):
                text += " " + block.code + " " + (block.caption.en if block.caption else "")
            elif isinstance(block, FigureBlock):
                text += " " + block.caption.en
        section_words.append(_words(text))
    spread: dict[str, int] = {}
    for words in section_words:
        for word in words:
            spread[word] = spread.get(word, 0) + 1
    placed = {}
    for item in variant["questions"]:
        asked = json_text(item)
        words = _words(asked)
        scores = [sum(math.log(1 + len(section_words) / spread[w]) for w in words & mine) for mine in section_words]
        best = max(range(len(scores)), key=lambda n: (round(scores[n], 6), n))
        placed[item["id"]] = lesson.sections[best].id
    return placed


def json_text(item: dict) -> str:
    """Every English string of a quiz item."""
    found: list[str] = []

    def walk(value) -> None:
        if isinstance(value, dict):
            if isinstance(value.get("en"), str):
                found.append(value["en"])
            for inner in value.values():
                walk(inner)
        elif isinstance(value, list):
            for inner in value:
                walk(inner)

    walk({k: v for k, v in item.items() if k != "id"})
    return " ".join(found)


def deck_slides(
    loaded,
    lesson: Lesson,
    lang: Language,
    env,
    variant: dict | None = None,
    plan: Plan | None = None,
) -> list[SlideView]:
    """The slides of the deck, in order: title, goals, then per section a divider, its slides,
    its results (claims checked by the build) and the questions that test it; key terms,
    exercises, any question left, and a summary; then the backup results (`deck: backup`)."""
    from coursegen.quiz.site import question_views

    languages = list(loaded.course.languages) if loaded is not None else [lang]
    builder = _Builder(lesson, lang, env, plan or Plan(), languages)
    ui = UI[lang]
    title = builder.new("title", markdown.render_inline(lesson.title.get(lang)), "title", ("title",))
    # The title slide: the summary's gist (its first paragraph, a long one cut after its first
    # sentence); the whole summary is said (notes) and shown again on the closing slide.
    opening = gist(lesson.summary.get(lang), lang)
    title.body.append(f'<div class="summary">{_md(opening["blocks"][0] if opening["blocks"] else "")}</div>')
    if opening["shortened"] or len(opening["blocks"]) > 1:
        title.notes.append(_md(lesson.summary.get(lang)))
    goals = builder.new("goals", html.escape(ui["goals"]), "goals", ("objectives",))
    goals.body.append(
        '<ul class="objectives">'
        + "".join(f"<li>{markdown.render_inline(objective.get(lang))}</li>" for objective in lesson.objectives)
        + "</ul>"
    )
    views, keys = question_views(variant, lang) if variant else ([], [])
    placed = question_sections(lesson, variant)
    # numbered in the order the deck asks them ("Question 3 of 9" comes after "Question 2 of 9")
    asked = [v["id"] for section in lesson.sections for v in views if placed.get(v["id"]) == section.id]
    asked += [v["id"] for v in views if not placed.get(v["id"])]
    views = [{**view, "number": asked.index(view["id"]) + 1} for view in views]
    total = len(views)
    evidence = env.globals.get("claim_evidence", {}) or {}
    count = len(lesson.sections)
    for index, section in enumerate(lesson.sections):
        divider = builder.new(
            "section", markdown.render_inline(section.title.get(lang)), f"part-{section.id}", ("sections", index)
        )
        divider.body.append(f'<p class="part">{html.escape(ui["part"].format(n=index + 1, total=count))}</p>')
        builder.section(section, index)
        builder.results(section.id, evidence)
        for view, key in zip(views, keys):
            if placed.get(view["id"]) == section.id:
                builder.question(view, key, total)
    if lesson.key_terms:
        builder.key_terms()
    if lesson.exercises:
        builder.exercises()
    for view, key in zip(views, keys):
        if not placed.get(view["id"]):
            builder.question(view, key, total)
    summary = builder.new("summary", html.escape(ui["summary"]), "summary", ("summary",))
    summary.body.append(f'<div class="summary">{_md(lesson.summary.get(lang))}</div>')
    if lesson.key_terms:
        summary.body.append(
            f'<p class="remember"><strong>{html.escape(ui["key_terms"])}:</strong> '
            + " · ".join(markdown.render_inline(term.term.get(lang)) for term in lesson.key_terms)
            + "</p>"
        )
    backup = [claim for claim in lesson.claims if claim.deck == "backup" and (lesson.id, claim.id) in evidence]
    if backup:  # after the closing summary: the lecture ends there, these answer questions
        divider = builder.new("section", html.escape(ui["backup"]), "backup", ("claims",))
        divider.body.append(f'<p class="part">{html.escape(ui["backup_part"])}</p>')
        builder.results(None, evidence)
    title.notes.append(f"<p>{html.escape(ui['keys'])}</p>")
    for slide in builder.slides:
        slide.body = [bullet_phrases(piece, lang) for piece in slide.body]
    return builder.slides


def render_deck(
    loaded, lesson: Lesson, lang: Language, staging: Path, env, variant: dict | None = None, plan: Plan | None = None
) -> Path:
    """Write `<staging>/<lang>/slides/<lesson>.html`; returns its path. `variant` is the lesson's
    in-class quiz variant (coursegen.slides.quiz.in_class_variants), None for no questions."""
    from ..pages import HTML_LANG, LANGUAGE_NAMES, page_ui, render_page
    from . import REVEAL_VERSION

    languages = list(loaded.course.languages)
    other = next((code for code in languages if code != lang), None)
    number = [item.id for item in loaded.lessons].index(lesson.id) + 1
    out = Path(staging) / lang / "slides" / f"{lesson.id}.html"
    render_page(
        env,
        "slides/deck.html",
        out,
        lang=lang,
        html_lang=HTML_LANG[lang],
        ui=page_ui(loaded.course, lang),
        deck_ui=UI[lang],
        course=loaded.course,
        lesson=lesson,
        number=number,
        slides=deck_slides(loaded, lesson, lang, env, variant, plan),
        other_lang=other,
        other_lang_name=LANGUAGE_NAMES.get(other or "", ""),
        other_html_lang=HTML_LANG.get(other or "", ""),
        other_url=f"../../{other}/slides/{lesson.id}.html" if other else None,
        reveal_version=REVEAL_VERSION,
        answer_key=ANSWER_KEY,
    )
    return out
