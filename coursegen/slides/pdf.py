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

So each printed PDF is kept in the course's cache (coursegen.cache, an output unit
`handout_<lang>_<lesson>[_notes]` under `.coursegen-cache/site/`) keyed by `print_key`: the deck's
bytes, the bytes of every site file it loads (scripts, stylesheets and what they load), the print options,
this module's PRINT_FORMAT, the Playwright version and the Chromium files' size and time. A deck
whose key is unchanged is copied from the cache without starting Chromium (when no deck changed,
Chromium is never started); an edited lesson reprints only its decks.
"""

from __future__ import annotations

import hashlib
import re
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from coursegen.errors import ContentError

CHROMIUM = Path("/usr/bin/chromium")
# What the printed bytes depend on besides the deck and its files: Debian's /usr/bin/chromium is a
# script that runs the real binary, so both files' size and time enter the cache key.
CHROMIUM_FILES = (CHROMIUM, Path("/usr/lib/chromium/chromium"))
PRINT_FORMAT = "1"  # bump when how a deck is printed changes (options, page set-up, normalise_pdf)
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
FIXED_DATE = b"20000101000000"  # written over the 14 digits of D:YYYYMMDDHHmmSS in each date
_DATE = re.compile(rb"(/(?:CreationDate|ModDate)\s*\(D:)(\d{14})")
# Chromium's document id is a hash of the time: replaced by a hash of the rest of the file.
_ID = re.compile(rb"/ID\s*\[\s*<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>\s*\]")


def normalise_pdf(data: bytes) -> bytes:
    """The PDF with its timestamps (and a time-derived document id) made fixed, same length."""
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


def _printer_identity() -> str:
    """The Playwright version and the Chromium files' size and modification time."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        parts = [f"playwright {version('playwright')}"]
    except PackageNotFoundError:
        parts = ["playwright ?"]
    for path in CHROMIUM_FILES:
        try:
            stat = path.stat()
            parts.append(f"{path} {stat.st_size} {stat.st_mtime_ns}")
        except OSError:
            parts.append(f"{path} missing")
    return "\n".join(parts)


# The URLs a page or stylesheet loads: <script src>, <img src>, a stylesheet's <link href> (not
# rel=alternate: the other language's deck), and a stylesheet's url(...) and @import.
_LOADED = (
    re.compile(r"""\bsrc\s*=\s*["']([^"'#?]+)"""),
    re.compile(r"""\burl\(\s*["']?([^"')#?]+)"""),
    re.compile(r"""@import\s+["']([^"'#?]+)"""),
)
_LINK = re.compile(r"<link\b[^>]*>", re.I)
_HREF = re.compile(r"""\bhref\s*=\s*["']([^"'#?]+)""", re.I)
_STYLESHEET = re.compile(r"""\brel\s*=\s*["']?[^"'>]*\b(stylesheet|preload)\b""", re.I)


def _local_sources(site: Path, deck: Path) -> list[Path]:
    """The files of `site` the deck loads (its scripts, stylesheets, images), and the files those
    stylesheets load (fonts, images, imports), so that a changed asset changes the print key; a
    page the deck only links to, or an asset it never loads (the search index), does not."""
    site = site.resolve()
    found: set[Path] = set()
    pending = [deck.resolve()]
    while pending:
        page = pending.pop()
        text = page.read_text(encoding="utf-8", errors="replace")
        urls = [url for pattern in _LOADED for url in pattern.findall(text)]
        urls += [href for link in _LINK.findall(text) if _STYLESHEET.search(link) for href in _HREF.findall(link)]
        for url in urls:
            if ":" in url or url.startswith("/"):
                continue  # a scheme (data:, https:) or an absolute path: nothing of the site
            path = (page.parent / url.strip()).resolve()
            if path in found or not path.is_file() or not path.is_relative_to(site):
                continue
            found.add(path)
            if path.suffix == ".css":
                pending.append(path)
    return sorted(found)


def print_key(site: Path | str, deck: Path | str, *, notes: bool, printer: str | None = None) -> str:
    """The digest of what printing `deck` (a file of `site`) depends on; same key, same PDF bytes."""
    site, deck = Path(site), Path(deck)
    digest = hashlib.sha256()
    for part in (PRINT_FORMAT, "notes" if notes else "plain", printer or _printer_identity()):
        digest.update(part.encode() + b"\0")
    digest.update(deck.read_bytes())
    for path in _local_sources(site, deck):
        digest.update(b"\0" + path.relative_to(site.resolve()).as_posix().encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


class _Chromium:
    """Headless Chromium with one browser context, started at the first deck that needs printing.

    Each deck is printed in a fresh page (after page.pdf() headless Chromium renders no more frames
    for that page, and reveal lays out its print view in one), opened by `window.open` from a page
    kept open on the decks' folder: a page opened by another page shares its renderer process, where a new
    page starts one and loads the fonts and reveal.js again (twice the CPU per deck, 8 decks: 15.5
    CPU-s that way, 7.9 this way, the same bytes). Decks printed with their notes are the exception
    (`_new_page`)."""

    def __init__(self, stack: ExitStack) -> None:
        self.stack = stack
        self.context: Any = None
        self.opener: Any = None
        self.errors: list[str] = []

    def print(self, deck: Path, notes: bool) -> bytes:
        if self.context is None:
            if not CHROMIUM.is_file():
                raise RuntimeError(
                    f"{CHROMIUM} is missing: install Chromium (Debian package 'chromium') to print decks"
                )
            from playwright.sync_api import sync_playwright

            playwright = self.stack.enter_context(sync_playwright())
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            self.stack.callback(browser.close)
            self.context = browser.new_context(viewport={"width": 1280, "height": 720}, color_scheme="light")
            self.stack.callback(self.context.close)
        url = deck.as_uri() + ("?print-pdf&notes" if notes else "?print-pdf")
        page = self._new_page(url) if notes else self._opened_page(url)
        page.wait_for_load_state("load")  # errors are recorded from before the page's first script
        page.wait_for_selector("html[data-deck-ready]", state="attached")
        page.wait_for_selector("html[data-deck-printed]", state="attached")
        if self.errors:
            raise RuntimeError(f"{deck}: {self.errors[0]}")
        # A link on paper leads nowhere (and its file:// target would name the
        # temporary folder): the text stays, the link goes.
        page.evaluate("document.querySelectorAll('a[href]').forEach(a => a.removeAttribute('href'))")
        pdf = page.pdf(print_background=True, prefer_css_page_size=True)
        page.close()
        return normalise_pdf(pdf)

    def _opened_page(self, url: str) -> Any:
        """A page showing `url`, opened by the kept page on the decks' folder."""
        if self.opener is None:
            self.opener = self.context.new_page()
            self.opener.goto(url.rsplit("/", 1)[0] + "/")  # the folder's listing: a file:// page, no script
        with self.context.expect_page() as opened:
            self.opener.evaluate("url => { window.open(url); }", url)
        page = opened.value  # errors thrown before it was reported are delivered to a listener added now
        page.on("pageerror", self._record)
        return page

    def _new_page(self, url: str) -> Any:
        """A page of its own showing `url`. With `notes` in its query reveal.js opens its speaker
        window, which would hide a deck opened by another page (no frame rendered, never laid out)."""
        page = self.context.new_page()
        page.on("pageerror", self._record)
        page.goto(url)
        return page

    def _record(self, error: Any) -> None:
        self.errors.append(str(error))


def print_decks(
    root: Path | str,
    site: Path | str,
    out_dir: Path | str,
    *,
    notes: bool = False,
    lessons: list[str] | None = None,
    languages: list[str] | None = None,
    cache_dir: Path | str | None = None,
) -> list[Path]:
    """Print the decks of `site` (built from the course at `root`) into `out_dir`/<lang>/<lesson>.pdf;
    a deck printed before with the same `print_key` is copied from the cache (`cache_dir`, by
    default the course's `.coursegen-cache/`) instead."""
    from grader.atomic import staged_folder

    from ..cache import Cache
    from ..yamlio import CACHE_DIR_NAME

    out_dir = Path(out_dir).resolve()
    chosen_lessons, chosen_langs = chosen_decks(root, out_dir, lessons, languages)
    cache = Cache(Path(cache_dir) if cache_dir else Path(root).resolve() / CACHE_DIR_NAME)
    written: list[Path] = []
    site = Path(site)
    printer = _printer_identity()
    with staged_folder(out_dir, label="printing") as staging, ExitStack() as stack:
        chromium = _Chromium(stack)
        for lang in chosen_langs:
            for lesson_id in chosen_lessons:
                deck = site / lang / "slides" / f"{lesson_id}.html"
                relative = f"{lang}/{lesson_id}.pdf"

                def write(folder: Path, deck: Path = deck, relative: str = relative) -> None:
                    target = folder / relative
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_bytes(chromium.print(deck, notes))

                name = f"handout_{lang}_{lesson_id}" + ("_notes" if notes else "")
                cache.place_unit(staging, name, print_key(site, deck, notes=notes, printer=printer), write)
                written.append(out_dir / relative)
    return written
