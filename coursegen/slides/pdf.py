"""Handouts: every deck printed to PDF by headless Chromium (Playwright), `coursegen slides --pdf`.

    print_decks(root, site, out_dir, notes=False, lessons=None, languages=None) -> [written PDF paths]

`site` is a site built from the course at `root` (the command builds one into a temporary folder
first, `coursegen build` reusing the cache, so the handouts are the decks of the current content;
this module never calls the build). Each deck is opened from `file://` with reveal's
`?print-pdf` view (one slide per page, every fragment shown, answers included); `notes` prints
each slide's speaker notes below it on the same page. The files land in `out_dir/<lang>/<lesson>.pdf`,
all at once (grader.atomic.staged_folder): on any error the old folder is left as it was.

Chromium stamps each PDF with its creation and modification time; those two dates are set to a
fixed value of the same length (so no offset in the file moves) and every other byte comes from
the deck, so the same input gives byte-identical PDFs.
"""

from __future__ import annotations

import re
from pathlib import Path

from coursegen.errors import ContentError

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
FIXED_DATE = b"20000101000000"  # written over the 14 digits of D:YYYYMMDDHHmmSS in each date
_DATE = re.compile(rb"(/(?:CreationDate|ModDate)\s*\(D:)(\d{14})")
# Chromium's document id is a hash of the time: replaced by a hash of the rest of the file.
_ID = re.compile(rb"/ID\s*\[\s*<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>\s*\]")


def normalise_pdf(data: bytes) -> bytes:
    """The PDF with its timestamps (and a time-derived document id) made fixed, same length."""
    import hashlib

    data = _DATE.sub(lambda m: m.group(1) + FIXED_DATE, data)
    found = _ID.search(data)
    if found:
        digest = hashlib.sha256(_ID.sub(b"", data)).hexdigest().upper().encode() * 4
        original = found.group(0)
        fixed = re.sub(rb"<[0-9A-Fa-f]+>", lambda m: b"<" + digest[: len(m.group(0)) - 2] + b">", original)
        data = data[: found.start()] + fixed + data[found.end() :]
    return data


def _refuse_foreign_folder(out_dir: Path) -> None:
    if not out_dir.exists():
        return
    if not out_dir.is_dir():
        raise ContentError(str(out_dir), "cannot write handouts here: it is a file, not a folder")
    foreign = [
        path
        for path in out_dir.rglob("*")
        if path.is_file() and (path.suffix != ".pdf" or len(path.relative_to(out_dir).parts) != 2)
    ]
    if foreign:
        raise ContentError(
            str(out_dir),
            f"refusing to replace this folder: it holds {foreign[0].relative_to(out_dir)}, which "
            "`coursegen slides --pdf` did not write (only <lang>/<lesson>.pdf); choose another -o",
        )


def chosen_decks(
    root: Path | str, out_dir: Path | str, lessons: list[str] | None = None, languages: list[str] | None = None
) -> tuple[list[str], list[str]]:
    """(lesson ids, languages) of the decks to print, in course order; a located error for an
    unknown lesson or language, or an `out_dir` that holds more than handouts (checked before the
    command builds anything)."""
    from ..loader import load_course

    loaded = load_course(Path(root).resolve())
    known = [lesson.id for lesson in loaded.lessons]
    for lesson_id in lessons or ():
        if lesson_id not in known:
            raise ContentError(
                str(loaded.course_file), f"--lesson {lesson_id}: no such lesson (known: {', '.join(known)})"
            )
    for lang in languages or ():
        if lang not in loaded.course.languages:
            raise ContentError(str(loaded.course_file), f"--lang {lang}: the course is not taught in it")
    _refuse_foreign_folder(Path(out_dir).resolve())
    chosen_lessons = [lesson for lesson in known if not lessons or lesson in lessons]
    chosen_langs: list[str] = [lang for lang in loaded.course.languages if not languages or lang in languages]
    return chosen_lessons, chosen_langs


def print_decks(
    root: Path | str,
    site: Path | str,
    out_dir: Path | str,
    *,
    notes: bool = False,
    lessons: list[str] | None = None,
    languages: list[str] | None = None,
) -> list[Path]:
    """Print the decks of `site` (built from the course at `root`) into `out_dir`/<lang>/<lesson>.pdf."""
    from grader.atomic import staged_folder

    out_dir = Path(out_dir).resolve()
    chosen_lessons, chosen_langs = chosen_decks(root, out_dir, lessons, languages)
    written: list[Path] = []
    site = Path(site)
    from playwright.sync_api import sync_playwright

    if not CHROMIUM.is_file():
        raise RuntimeError(f"{CHROMIUM} is missing: install Chromium (Debian package 'chromium') to print decks")
    with staged_folder(out_dir, label="printing") as staging, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            context = browser.new_context(viewport={"width": 1280, "height": 720}, color_scheme="light")
            errors: list[str] = []
            for lang in chosen_langs:
                for lesson_id in chosen_lessons:
                    # A fresh page per deck: after page.pdf() headless Chromium renders no
                    # more frames for that page, and reveal lays out its print view in one.
                    page = context.new_page()
                    page.on("pageerror", lambda error: errors.append(str(error)))
                    deck = site / lang / "slides" / f"{lesson_id}.html"
                    query = "?print-pdf&notes" if notes else "?print-pdf"
                    page.goto(deck.as_uri() + query, wait_until="load")
                    page.wait_for_selector("html[data-deck-ready]", state="attached")
                    page.wait_for_selector("html[data-deck-printed]", state="attached")
                    if errors:
                        raise RuntimeError(f"{deck}: {errors[0]}")
                    # A link on paper leads nowhere (and its file:// target would name the
                    # temporary folder): the text stays, the link goes.
                    page.evaluate("document.querySelectorAll('a[href]').forEach(a => a.removeAttribute('href'))")
                    pdf = page.pdf(print_background=True, prefer_css_page_size=True)
                    page.close()
                    target = staging / lang / f"{lesson_id}.pdf"
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_bytes(normalise_pdf(pdf))
                    written.append(out_dir / lang / f"{lesson_id}.pdf")
            context.close()
        finally:
            browser.close()
    return written
