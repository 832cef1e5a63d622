"""One reveal.js deck per lesson and language, made from the lesson itself.

    write_decks(loaded, staging, env)        # the build's writer: every lesson, every language
    render_deck(loaded, lesson, lang, staging, env, variant=None)   # one deck (for a per-lesson build)
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
from ..quiz.variants import short_number
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
    },
}
OPTION_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


@dataclass
class SlideView:
    id: str
    kind: str  # title | content | code | figure | terms | exercise | question
    title: str  # inline HTML
    body: list[str] = field(default_factory=list)  # HTML pieces, in order
    notes: list[str] = field(default_factory=list)  # HTML of the speaker notes
    dense: bool = False  # smaller type: more text than the budget
    weight: float = 0.0


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


def _fragment(piece: str) -> str:
    """Make every list item of `piece` a fragment, or else the whole piece."""
    if "<li>" in piece:
        return piece.replace("<li>", '<li class="fragment">')
    return f'<div class="fragment">{piece}</div>'


class _Builder:
    def __init__(self, lesson: Lesson, lang: Language, env) -> None:
        self.lesson, self.lang, self.env = lesson, lang, env
        self.slides: list[SlideView] = []
        self.ids: set[str] = set()
        self.ui = UI[lang]

    def new(self, kind: str, title: str, base_id: str) -> SlideView:
        slide_id, n = base_id, 2
        while slide_id in self.ids:
            slide_id, n = f"{base_id}-{n}", n + 1
        self.ids.add(slide_id)
        slide = SlideView(slide_id, kind, title)
        self.slides.append(slide)
        return slide

    def section(self, section) -> None:
        lang = self.lang
        title = markdown.render_inline(section.title.get(lang))
        continued = f'{title} <span class="continued">({self.ui["continued"]})</span>'
        current: SlideView | None = None  # the section's latest slide

        def content_slide(kind: str = "content", own_title: str | None = None) -> SlideView:
            nonlocal current
            shown = own_title if own_title is not None else continued if current is not None else title
            current = self.new(kind, shown, f"s-{section.id}")
            return current

        for block in section.blocks:
            options = block.slide or SlideOptions()
            if options.show == "omit":
                continue
            extra_notes = [_md(options.notes.get(lang))] if options.notes else []
            forced_title = markdown.render_inline(options.title.get(lang)) if options.title else None
            if isinstance(block, (TextBlock, NoteBlock)):
                source = block.get(lang)
                if options.show == "notes":
                    target = current or content_slide()
                    target.notes += [_md(source), *extra_notes]
                    continue
                if options.show == "full":
                    pieces, shortened = gist(source, lang, whole=True)["blocks"], False
                else:
                    found = gist(source, lang)
                    pieces, shortened = found["blocks"], found["shortened"]
                weights = [_lines(piece, lang) for piece in pieces]
                if (
                    current is None
                    or options.new
                    or current.kind != "content"
                    or (current.weight and current.weight + sum(weights) > LINES_PER_SLIDE)
                ):
                    content_slide(own_title=forced_title)
                assert current is not None
                current.notes += ([_md(source)] if shortened else []) + extra_notes
                # The block's pieces fill the slide; what does not fit goes on on the next one.
                # A piece whose sentence goes on in the next one ("... by the angle" before a
                # formula) moves along with it.
                chunks: list[tuple[SlideView, list[str]]] = [(current, [])]
                last: list[tuple[str, float]] = []  # (source, weight) of the pieces on chunks[-1]
                for piece, weight in zip(pieces, weights):
                    slide, shown = chunks[-1]
                    if shown and slide.weight + weight > LINES_PER_SLIDE:
                        carried = []
                        if len(shown) > 1 and not _ends_sentence(last[-1][0]):
                            carried = [(shown.pop(), *last.pop())]
                            slide.weight -= carried[0][2]
                        chunks.append((content_slide(), []))
                        slide, shown = chunks[-1]
                        last = []
                        for html_piece, source_piece, carried_weight in carried:
                            shown.append(html_piece)
                            last.append((source_piece, carried_weight))
                            slide.weight += carried_weight
                    rendered = _md(piece)
                    shown.append(_fragment(rendered) if options.incremental else rendered)
                    last.append((piece, weight))
                    slide.weight += weight
                for slide, shown in chunks:
                    body = "".join(shown)
                    if isinstance(block, NoteBlock):
                        body = f'<aside class="note note-{block.style}">{body}</aside>'
                    slide.body.append(body)
            elif options.show == "notes":  # a code example or figure the speaker only mentions
                target = current or content_slide()
                if isinstance(block, CodeBlock):
                    target.notes.append(self.code(block, incremental=False))
                else:
                    target.notes.append(f"<p>{markdown.render_inline(block.caption.get(lang))}</p>")
                target.notes += extra_notes
            elif isinstance(block, CodeBlock):
                slide = content_slide("code", own_title=forced_title)
                slide.body.append(self.code(block, incremental=options.incremental))
                slide.notes += extra_notes
                current = slide
            elif isinstance(block, FigureBlock):
                slide = content_slide("figure", own_title=forced_title)
                slide.body.append(self.figure(block, len(self.slides)))
                slide.notes.append(f"<p>{html.escape(block.alt.get(lang))}</p>")
                slide.notes += extra_notes
                current = slide
        for slide in self.slides:
            slide.dense = slide.weight > LINES_PER_SLIDE

    def code(self, block: CodeBlock, *, incremental: bool) -> str:
        outputs = self.env.globals.get("example_outputs", {})
        output = outputs.get((self.lesson.id, block.id)) if block.show_output else None
        code_html = markdown.highlight_code(block.code.rstrip("\n") + "\n", "python", "")
        caption = (
            f"<figcaption>{markdown.render_inline(block.caption.get(self.lang))}</figcaption>" if block.caption else ""
        )
        out = ""
        if output:
            out = (
                f'<div class="output{" fragment" if incremental else ""}">'
                f'<span class="output-label" aria-hidden="true">{html.escape(self.ui["output"])}</span>'
                f'<pre tabindex="0" role="group" data-region="output"><samp>{html.escape(output)}</samp></pre></div>'
            )
        return f'<figure class="example">{caption}{code_html}{out}</figure>'

    def figure(self, block: FigureBlock, number: int) -> str:
        from ..pages import accessible_svg

        svgs = self.env.globals.get("figure_svgs", {})
        svg = svgs.get((self.lesson.id, block.id), "")
        alt = block.alt.get(self.lang)
        caption = markdown.render_inline(block.caption.get(self.lang))
        image = accessible_svg(svg, f"slide-fig-{block.id}", alt)
        return (
            f'<figure class="figure"><div class="figure-image">{image}</div><figcaption>{caption}</figcaption></figure>'
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
                found = gist(definition, self.lang)
                rows.append(f"<dt>{name}</dt><dd>{''.join(_md(p) for p in found['blocks'])}</dd>")
                if found["shortened"]:
                    slide.notes.append(f"<p><strong>{name}</strong></p>{_md(definition)}")
            slide.body.append(f'<dl class="terms">{"".join(rows)}</dl>')

    def exercises(self) -> None:
        for exercise in self.lesson.exercises:
            title = f"{self.ui['exercise_word']}: <code>{html.escape(exercise.name)}</code>"
            slide = self.new("exercise", title, f"exercise-{exercise.name}")
            statement = exercise.statement.get(self.lang)
            found = gist(statement, self.lang)
            slide.body.append("".join(_md(p) for p in found["blocks"]))
            slide.weight = sum(_lines(p, self.lang) for p in found["blocks"])
            slide.dense = slide.weight > LINES_PER_SLIDE
            if found["shortened"]:
                slide.notes.append(_md(statement))

    def questions(self, variant: dict) -> None:
        from coursegen.quiz.site import question_views

        views, keys = question_views(variant, self.lang)
        total = len(views)
        for view, key, item in zip(views, keys, variant["questions"]):
            title = html.escape(self.ui["question"].format(n=view["number"], total=total))
            slide = self.new("question", title, f"question-{view['id']}")
            body = [f'<div class="question-text">{view["text"]}</div>']
            answer: list[str] = []
            notes: list[str] = []
            kind = view["type"]
            if kind in ("single", "multiple", "true_false"):
                options = "".join(
                    f'<li data-correct="{"true" if n in key["correct"] else "false"}">'
                    f'<span class="option-letter" aria-hidden="true">{OPTION_LETTERS[n]}</span> {option}</li>'
                    for n, option in enumerate(view["options"])
                )
                body.append(f'<ol class="question-options" type="A">{options}</ol>')
                right = [n for n in key["correct"]]
                letters = ", ".join(OPTION_LETTERS[n] for n in right)
                answer.append(
                    f"<p><strong>{self.ui['answer']}: {letters}</strong> "
                    + " ".join(view["options"][n] for n in right)
                    + "</p>"
                )
                answer += [f"<p>{key['feedback'][n]}</p>" for n in right if key["feedback"][n]]
                for n, feedback in enumerate(key["feedback"]):
                    if n not in right and feedback:
                        label = html.escape(self.ui["if_chosen"].format(answer=OPTION_LETTERS[n]))
                        notes.append(f"<p><strong>{label}:</strong> {feedback}</p>")
            elif kind == "matching":
                lefts = "".join(f"<li>{left}</li>" for left in view["lefts"])
                choices = "".join(f"<li>{html.escape(choice)}</li>" for choice in view["choices"])
                body.append(
                    f'<div class="matching"><ol class="question-options">{lefts}</ol>'
                    f'<ol class="question-options" type="a">{choices}</ol></div>'
                )
                pairs = "".join(
                    f"<li>{left} → {html.escape(view['choices'][choice])}</li>"
                    for left, choice in zip(view["lefts"], key["answer"])
                )
                answer.append(f"<p><strong>{self.ui['answer']}:</strong></p><ol>{pairs}</ol>")
                if key.get("right"):
                    answer.append(f"<p>{key['right']}</p>")
            else:
                shown = html.escape(str(key.get("display") or ", ".join(key.get("accepted", []))))
                answer.append(f"<p><strong>{self.ui['answer']}: {shown}</strong></p>")
                if key.get("right"):
                    answer.append(f"<p>{key['right']}</p>")
                for wrong in key.get("wrong", []):
                    label = html.escape(self.ui["if_chosen"].format(answer=short_number(wrong["value"])))
                    notes.append(f"<p><strong>{label}:</strong> {wrong['feedback']}</p>")
            answer.append(
                f'<div class="question-explanation"><p><strong>{self.ui["explanation"]}</strong></p>'
                f"{view['explanation']}</div>"
            )
            body.append(f'<p class="answer-hint">{html.escape(self.ui["answer_hint"])}</p>')
            body.append(f'<div class="question-answer fragment" data-answer="{view["id"]}">{"".join(answer)}</div>')
            slide.body += body
            slide.notes += ["".join(answer), *notes]
            slide.dense = len(view["text"]) + sum(len(o) for o in view.get("options", [])) > 1800


def deck_slides(loaded, lesson: Lesson, lang: Language, env, variant: dict | None = None) -> list[SlideView]:
    builder = _Builder(lesson, lang, env)
    ui = UI[lang]
    title = builder.new("title", markdown.render_inline(lesson.title.get(lang)), "title")
    summary = lesson.summary.get(lang)
    found = gist(summary, lang)
    title.body.append(f'<div class="summary">{"".join(_md(piece) for piece in found["blocks"])}</div>')
    if found["shortened"]:
        title.notes.append(_md(summary))
    for section in lesson.sections:
        builder.section(section)
    if lesson.key_terms:
        builder.key_terms()
    if lesson.exercises:
        builder.exercises()
    if variant:
        builder.questions(variant)
    title.notes.append(f"<p>{html.escape(ui['keys'])}</p>")
    return builder.slides


def render_deck(loaded, lesson: Lesson, lang: Language, staging: Path, env, variant: dict | None = None) -> Path:
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
        slides=deck_slides(loaded, lesson, lang, env, variant),
        other_lang=other,
        other_lang_name=LANGUAGE_NAMES.get(other or "", ""),
        other_html_lang=HTML_LANG.get(other or "", ""),
        other_url=f"../../{other}/slides/{lesson.id}.html" if other else None,
        reveal_version=REVEAL_VERSION,
        answer_key=ANSWER_KEY,
    )
    return out


def write_decks(loaded, staging: Path, env) -> None:
    """Registered in coursegen.build.OUTPUT_WRITERS: every lesson's deck in every course language."""
    from .quiz import in_class_variants

    variants = in_class_variants(loaded, list(loaded.lessons), env.globals.get("cache_dir") or loaded.cache_dir)
    for lesson in loaded.lessons:
        for lang in loaded.course.languages:
            render_deck(loaded, lesson, lang, staging, env, variants.get(lesson.id))
