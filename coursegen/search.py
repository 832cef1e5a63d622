"""The client-side search index: `_site/assets/search-index.js`.

One entry per lesson, lesson section, key term and quiz, in every language, as plain
text. It is a classic script that sets `window.COURSEGEN_SEARCH_INDEX`, so the search
page (assets/search.js) works from file:// where fetch() is refused. Matching happens
in the browser on normalised substrings, which makes Chinese searchable by single
characters and by words (any run of characters) without a word segmenter.
"""

from __future__ import annotations

import json
from pathlib import Path

from . import markdown
from .schema import Language, NoteBlock, TextBlock
from .yamlio import read_yaml

QUIZ_TITLE = {"en": "Quiz: {title}", "zh": "测验：{title}"}
MAX_TEXT_CHARS = 1500


def search_entries(loaded) -> list[dict[str, str]]:
    """The index entries: lang, kind, title, lesson title, url (from the site root), text."""
    entries: list[dict[str, str]] = []
    for lang in loaded.course.languages:
        for lesson in loaded.lessons:
            entries += lesson_entries(loaded, lesson, lang)
    return entries


def lesson_entries(loaded, lesson, lang: Language) -> list[dict[str, str]]:
    """One lesson's fragment of the index in one language (the build keeps fragments cached:
    a prose edit recomputes only its lesson's)."""
    entries: list[dict[str, str]] = []
    lesson_title = markdown.plain_text(lesson.title.get(lang))
    page = f"{lang}/{lesson.id}.html"
    entries.append(
        _entry(
            lang,
            "lesson",
            lesson_title,
            "",
            page,
            " ".join([lesson.summary.get(lang)] + [o.get(lang) for o in lesson.objectives]),
        )
    )
    for section in lesson.sections:
        text = " ".join(block.get(lang) for block in section.blocks if isinstance(block, (TextBlock, NoteBlock)))
        entries.append(
            _entry(
                lang,
                "section",
                markdown.plain_text(section.title.get(lang)),
                lesson_title,
                f"{page}#{section.id}",
                text,
            )
        )
    for term in lesson.key_terms:
        entries.append(
            _entry(
                lang,
                "term",
                markdown.plain_text(term.term.get(lang)),
                lesson_title,
                f"{lang}/glossary.html#term-{term.id}",
                f"{term.term.en} {term.term.get(lang)} {term.definition.get(lang)}",
            )
        )
    if lesson.quiz:
        quiz_title = _quiz_title(loaded, lesson.id, lang) or lesson_title
        entries.append(
            _entry(
                lang,
                "quiz",
                QUIZ_TITLE[lang].format(title=quiz_title),
                lesson_title,
                f"{lang}/quiz-{lesson.id}.html",
                lesson.summary.get(lang),
            )
        )
    return entries


def _quiz_title(loaded, lesson_id: str, lang: str) -> str | None:
    """The quiz file's own `title` in `lang` (plain text), or None when it has none.
    (The quiz itself is validated by coursegen.quiz; a malformed title here is just ignored.)"""
    path = loaded.quiz_files.get(lesson_id)
    if path is None:
        return None
    title = read_yaml(path, cache_dir=loaded.cache_dir).data.get("title")
    if isinstance(title, dict) and isinstance(title.get(lang), str) and title[lang].strip():
        return markdown.plain_text(title[lang])
    return None


def _entry(lang: str, kind: str, title: str, lesson: str, url: str, text: str) -> dict[str, str]:
    plain = markdown.plain_text(text)
    if len(plain) > MAX_TEXT_CHARS:
        plain = plain[:MAX_TEXT_CHARS]
    return {"lang": lang, "kind": kind, "title": title, "lesson": lesson, "url": url, "text": plain}


def write_search_index_entries(entries: list[dict[str, str]], staging: Path) -> None:
    """assets/search-index.js holding `entries` (in their order)."""
    target = Path(staging) / "assets" / "search-index.js"
    target.parent.mkdir(parents=True, exist_ok=True)
    data = json.dumps(entries, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    data = data.replace("</", "<\\/")
    target.write_text(f"window.COURSEGEN_SEARCH_INDEX = {data};\n", encoding="utf-8")
