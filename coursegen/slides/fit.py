"""Decks that fit: each lesson's decks rendered, laid out in Chromium, refitted by rule, checked.

    with layout_session() as checker:               # one browser for the build (None without one)
        render_lesson_decks(loaded, lesson, out, env, variant, checker)

The rules, tried in this order for a slide that does not fit (both languages get the same
change, so their decks keep the same slides):

1. pagination by measure: the pieces of a section fill a slide by their measured height (the
   first rendering uses an estimate), the rest goes on on a following "(continued)" slide;
2. a code example too long for its slide is split by lines over "(continued)" slides, its
   output on the last;
3. shrink: the slide's type steps down (FIT_LEVELS, to a floor of 24 px text and 16 px code);
4. a list or paragraph still too tall for a slide of its own is split at item or sentence
   ends over two or more slides; a question whose answer does not fit gets an answer slide.

When no rule fits, the build fails with `lesson.yaml:line` and the slide. The same check
refuses a slide that ends with a lead-in sentence (ending in a colon) and en/zh decks whose
slides differ. Without Chromium or Playwright the decks are written as rendered and the build
says once that the layout check was skipped, and why.
"""

from __future__ import annotations

import contextlib
import math
import sys
from pathlib import Path
from typing import Iterator

from ..errors import ContentError, ContentErrors
from .deck import splittable, BODY_PX, CODE_LINE_PX, FIT_LEVELS, FIT_SCALES, Plan, deck_slides, render_deck
from .layout import DeckLayout, LayoutChecker, checker_missing

MAX_PASSES = 6
_skip_said = ""  # the reason last said (said once per build, again when it changes)


@contextlib.contextmanager
def layout_session() -> Iterator[LayoutChecker | None]:
    """A LayoutChecker for the build (opened on first use), or None with one line saying why."""
    holder = _LazyChecker()
    try:
        yield holder  # type: ignore[misc]
    finally:
        holder.close()


class _LazyChecker:
    """Starts Chromium only when a deck must be laid out (a no-change rebuild starts none)."""

    def __init__(self) -> None:
        self._checker: LayoutChecker | None = None
        self._tried = False

    def get(self) -> LayoutChecker | None:
        global _skip_said
        if not self._tried:
            self._tried = True
            self._checker = LayoutChecker.open()
            if self._checker is None and _skip_said != checker_missing():
                _skip_said = checker_missing()
                print(f"coursegen: slide layout check skipped: {checker_missing()}", file=sys.stderr)
        return self._checker

    def close(self) -> None:
        if self._checker is not None:
            self._checker.close()
            self._checker = None


def layout_available() -> bool:
    """Whether decks built now would be laid out (part of the decks' cache key)."""
    import os

    from .layout import chromium_path

    if os.environ.get("COURSEGEN_SKIP_LAYOUT"):
        return False
    try:
        import playwright  # noqa: F401
    except ImportError:
        return False
    return chromium_path().is_file()


def render_lesson_decks(
    loaded, lesson, out: Path, env, variant: dict | None, checker, site: Path | None = None
) -> list[Path]:
    """Write the lesson's deck in every course language under `out`, fitted; raise ContentErrors
    when a slide cannot be made to fit. `site`: a folder holding the built assets/ (the decks are
    measured from a copy beside the site's own decks, where their stylesheets resolve)."""
    languages = list(loaded.course.languages)
    plan = Plan()
    browser = checker.get() if isinstance(checker, _LazyChecker) else checker
    problems: list[ContentError] = []
    for _ in range(MAX_PASSES):
        paths = {lang: render_deck(loaded, lesson, lang, out, env, variant, plan) for lang in languages}
        if browser is None:
            return list(paths.values())
        layouts = _measure(browser, paths, Path(site or out), lesson.id)
        slides = {lang: deck_slides(loaded, lesson, lang, env, variant, plan) for lang in languages}
        problems, fixes = _refit(loaded, lesson, plan, layouts, slides)
        if not problems:
            return list(paths.values())
        if not fixes:
            break
    raise ContentErrors(problems)


def _measure(browser, paths: dict[str, Path], site: Path, lesson_id: str) -> dict[str, DeckLayout]:
    """{language: layout} of the lesson's decks, measured side by side, each from a copy beside the
    site's own decks (where their assets resolve) unless it is there already."""
    copies = {}
    for lang, path in paths.items():
        copy = site / lang / "slides" / f".layout-{lesson_id}.html"
        if copy.resolve() != Path(path).resolve():
            copy.parent.mkdir(parents=True, exist_ok=True)
            copy.write_bytes(Path(path).read_bytes())
            copies[lang] = copy
    try:
        layouts = browser.measure_all([copies.get(lang, path) for lang, path in paths.items()])
        return dict(zip(paths, layouts))
    finally:
        for copy in copies.values():
            copy.unlink(missing_ok=True)
            with contextlib.suppress(OSError):
                copy.parent.rmdir()
                copy.parent.parent.rmdir()


def _refit(loaded, lesson, plan: Plan, layouts: dict[str, DeckLayout], slides: dict) -> tuple[list[ContentError], bool]:
    """Learn from the measured layouts; (what is still wrong, whether the plan changed)."""
    languages = list(layouts)
    first = languages[0]
    location = loaded.location(lesson.id, ())
    ids = {lang: layouts[lang].ids for lang in languages}
    if any(ids[lang] != ids[first] for lang in languages):
        other = next(lang for lang in languages if ids[lang] != ids[first])
        return [
            ContentError(
                location,
                f"the {first} and {other} decks differ in their slides ({len(ids[first])} and {len(ids[other])}): "
                f"{_first_difference(ids[first], ids[other])}",
            )
        ], False
    fixes = False  # a rule changed a slide that does not fit: render again
    # 1. measured heights of every piece (at full size), the largest over the languages
    for index, slide_id in enumerate(ids[first]):
        if plan.fit.get(slide_id, 0):
            continue
        for lang in languages:
            for key, height in layouts[lang].slides[index].pieces.items():
                if height > plan.heights.get(key, 0) + 0.5:
                    plan.heights[key] = round(height, 1)
    problems: list[ContentError] = []
    for index, slide_id in enumerate(ids[first]):
        measured = [layouts[lang].slides[index] for lang in languages]
        views = {lang: slides[lang][index] for lang in languages if index < len(slides[lang])}
        view = views.get(first)
        overflow = max(m.overflow for m in measured)
        scrolled = any(m.scrolled for m in measured)
        lead_in = next((m.lead_in for m in measured if m.lead_in), "")
        if not (overflow > 1.5 or scrolled or lead_in):
            continue
        fixed = False
        level = plan.fit.get(slide_id, 0)
        room = max(m.room for m in measured) or BODY_PX
        # how much of the body must go: at the current size, and what a shrink would leave
        ratio = room / (room + overflow) * (FIT_SCALES[level] if level else 1.0)
        wanted = next((n for n in range(1, FIT_LEVELS + 1) if FIT_SCALES[n] <= ratio * 0.995), None)
        if lead_in:
            pass  # what it introduces is not on the slide: the author must say (located error below)
        elif view is not None and view.code_key and overflow > 1.5 and (plan.code_lines.get(view.code_key, 99) > 4):
            current = plan.code_lines.get(view.code_key) or int((BODY_PX - 40) // CODE_LINE_PX)
            plan.code_lines[view.code_key] = max(4, current - math.ceil(overflow / CODE_LINE_PX) - 1)
            fixed = True
        elif view is not None and view.kind == "content" and len(view.piece_keys) > 1 and (wanted is None or scrolled):
            # several pieces: the first one that does not fit (by measure) starts the next slide
            heights: dict[str, float] = {}
            for m in measured:
                for key, height in m.pieces.items():
                    heights[key] = max(heights.get(key, 0.0), height)
            used, breaker = 0.0, view.piece_keys[-1]
            for key in view.piece_keys[1:]:
                used += heights.get(view.piece_keys[view.piece_keys.index(key) - 1], 0.0)
                if used + heights.get(key, 0.0) > room - 2:
                    breaker = key
                    break
            whole = breaker.split("p")[0] if "p" in breaker.rsplit(".", 1)[-1] else breaker
            source = view.sources[view.piece_keys.index(breaker)] if breaker in view.piece_keys else ""
            if heights.get(breaker, 0.0) > room * 0.95 and plan.parts.get(whole, 1) < 6 and splittable(source, first):
                # too tall for any slide: split it at item or sentence ends
                plan.parts[whole] = max(plan.parts.get(whole, 1) + 1, math.ceil(heights[breaker] / (room * 0.9)))
                fixed = True
            elif breaker and breaker not in plan.breaks:
                plan.breaks.add(breaker)
                fixed = True
        elif wanted is not None and wanted > level:
            plan.fit[slide_id] = wanted
            fixed = True
        elif view is not None and view.kind == "question" and slide_id not in plan.answer_apart:
            plan.answer_apart.add(slide_id)
            plan.fit.pop(slide_id, None)
            fixed = True
        elif (
            view is not None
            and view.kind == "content"
            and len(view.piece_keys) == 1
            and view.piece_keys[0]
            and splittable(view.sources[0], first)
        ):
            key = view.piece_keys[0]
            key = key.split("p")[0] if "p" in key.rsplit(".", 1)[-1] else key
            if plan.parts.get(key, 1) < 6:
                plan.parts[key] = max(plan.parts.get(key, 1) + 1, math.ceil((room + overflow) / room))
                plan.fit.pop(slide_id, None)
                fixed = True
        elif view is not None and view.parts_key and plan.parts.get(view.parts_key, 1) < 6:
            # an exercise statement too long for its slide goes on over a continued one, at item ends
            plan.parts[view.parts_key] = plan.parts.get(view.parts_key, 1) + 1
            for other in slides[first]:
                if other.parts_key == view.parts_key:
                    plan.fit.pop(other.id, None)
            fixed = True
        elif level < FIT_LEVELS:
            plan.fit[slide_id] = FIT_LEVELS
            fixed = True
        fixes |= fixed
        where = loaded.location(lesson.id, view.origin) if view is not None and view.origin else location
        found = "; ".join(dict.fromkeys(p for m in measured for p in m.problems()))
        problems.append(
            ContentError(
                where,
                f"slide {index + 1} ('{slide_id}') of the {'/'.join(languages)} deck does not fit "
                f"{'after fitting' if fixed else 'and no rule fits it'} ({found}): "
                "shorten it with the block's `slide:` keys (text, lines, show: notes), see docs/authoring.md",
            )
        )
    return problems, fixes


def _first_difference(one: list[str], other: list[str]) -> str:
    for index, (a, b) in enumerate(zip(one, other)):
        if a != b:
            return f"slide {index + 1} is '{a}' in one and '{b}' in the other"
    return f"one has {abs(len(one) - len(other))} more slide(s) at the end"
