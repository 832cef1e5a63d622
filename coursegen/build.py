"""Build the course site: load, run examples, draw figures, write every output, swap in.

    build_site(root, out_dir) -> BuildReport

1. `load_course` (every content check; nothing is written if one fails);
2. code examples run in one child process for all lessons, cached in `.coursegen-cache/`;
3. meanwhile, the lessons' experiments run (cached by content hash) and their claims are checked
   (coursegen.claims: a claim that does not hold stops the build, located at the claim);
   figures drawn with matplotlib, cached the same way (those of an experiment from its results);
4. each writer of OUTPUT_WRITERS writes into a staging folder next to `out_dir`;
5. the staging folder replaces `out_dir` only when all of that succeeded.

Other parts register their writer here with a one-line edit. A writer is called as
`writer(loaded_course, staging_dir, env)` and writes files under `staging_dir` only.
"""

from __future__ import annotations

import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from . import claims, drawing
from grader.atomic import staged_folder, write_atomically

from .errors import ContentError, ContentErrors
from .examples import ExampleRunner
from .incremental import OutputCache, write_incrementally
from .memo import MEMO
from .loader import CACHE_DIR_NAME, LoadedCourse, load_course
from .schema import FigureBlock
from .search import write_search_index
from .pages import make_env
from .site import write_assets, write_pages
from .quiz.site import write_quiz_pages
from .notebooks import write_notebooks
from .slides.output import write_decks

OUTPUT_WRITERS: list[Callable[..., Any]] = [
    write_assets,
    write_pages,
    write_search_index,
    write_quiz_pages,
    write_notebooks,
    write_decks,
]
# Per-lesson writers, called as `writer(loaded_course, lesson, staging_dir, env)` for each lesson
# after OUTPUT_WRITERS; each lesson's output is rebuilt only when that lesson (or something every
# page depends on) changed (coursegen/incremental.py). A lesson's slide deck belongs here.
LESSON_WRITERS: list[Callable[..., None]] = []


@dataclass
class BuildReport:
    out_dir: Path
    lessons: int
    pages: int
    files: int
    bytes: int
    examples_executed: int
    examples_cached: int
    example_processes: int
    figures_drawn: int
    figures_cached: int
    seconds: float
    experiments_run: int = 0
    experiments_cached: int = 0
    claims_checked: int = 0
    warnings: tuple[str, ...] = ()  # printed before the summary (a stale STUDENTS.md)
    units_written: int = 0
    units_reused: int = 0
    claim_report: tuple[str, ...] = ()  # per claim: its per-seed values and smallest margin (claims.claim_report)

    def summary(self) -> str:
        return "".join(f"warning: {w}\n" for w in self.warnings) + (
            f"Built {self.pages} pages ({self.files} files, {self.bytes / 1024:.0f} KB) for "
            f"{self.lessons} lessons into {self.out_dir} in {self.seconds:.1f} s; examples: "
            f"{self.examples_executed} run, {self.examples_cached} cached; figures: "
            f"{self.figures_drawn} drawn, {self.figures_cached} cached; outputs: {self.units_written} "
            f"rebuilt, {self.units_reused} unchanged"
            + (
                f"; experiments: {self.experiments_run} run, {self.experiments_cached} cached, "
                f"{self.claims_checked} claim(s) hold."
                if self.experiments_run + self.experiments_cached
                else "."
            )
            + "".join(f"\n  claim {line}" for line in self.claim_report)
        )


def build_site(
    root: Path | str,
    out_dir: Path | str,
    *,
    progress: bool = True,
    cache_dir: Path | str | None = None,
    incremental: bool = True,
) -> BuildReport:
    """Build the site of the course at `root` into `out_dir` (atomically, deterministically).

    `incremental`: reuse each output unit (a lesson's pages, notebooks, quiz pages; the course
    pages; the assets) whose inputs are unchanged since a build with the same cache
    (coursegen/incremental.py); the bytes written are the same either way."""
    started = time.perf_counter()
    root = Path(root).resolve()
    out_dir = Path(out_dir).resolve()
    cache = Path(cache_dir) if cache_dir else root / CACHE_DIR_NAME
    loaded = load_course(root, cache_dir=cache)
    from .stubs import stale_stub_errors

    stale = stale_stub_errors(root)  # students would read an old specification
    if stale:
        raise ContentErrors(stale)
    warnings = stale_guide_warnings(loaded)

    runner = ExampleRunner(cache)
    # The examples of every lesson run in one child process (one torch import); the figures
    # are drawn in this process meanwhile, on the other core.
    with ThreadPoolExecutor(max_workers=1) as pool:
        examples = pool.submit(runner.course_outputs, loaded)
        runs = _experiments_and_claims(loaded, cache, examples)
        svgs, drawn, cached = draw_figures(loaded, cache, progress, runs)
        outputs = examples.result()  # raises ContentErrors naming every failing example

    env = make_env(root, cache_dir=cache)
    env.globals["example_outputs"] = outputs
    env.globals["figure_svgs"] = svgs
    env.globals["claim_evidence"] = runs.evidence
    env.globals.setdefault("cache_dir", cache)  # the quiz and notebook writers' caches, beside the others

    _refuse_foreign_folder(out_dir)
    units = OutputCache(cache / "site", enabled=incremental)
    with staged_folder(out_dir, label="building") as staging:  # a site is readable like any folder: 0755
        if incremental:
            writers = list(OUTPUT_WRITERS)
            write_incrementally(loaded, staging, env, writers, list(LESSON_WRITERS), units)
        else:
            for writer in _progress(OUTPUT_WRITERS, progress, "writing"):
                writer(loaded, staging, env)
            for lesson_writer in LESSON_WRITERS:
                for lesson in loaded.lessons:
                    lesson_writer(loaded, lesson, staging, env)
    MEMO.save(prune=True)
    files = [p for p in out_dir.rglob("*") if p.is_file()]
    return BuildReport(
        warnings=tuple(warnings),
        out_dir=out_dir,
        lessons=len(loaded.lessons),
        pages=sum(1 for p in files if p.suffix == ".html"),
        files=len(files),
        bytes=sum(p.stat().st_size for p in files),
        examples_executed=runner.blocks_executed,
        examples_cached=runner.blocks_from_cache,
        example_processes=runner.processes_started,
        figures_drawn=drawn,
        figures_cached=cached,
        seconds=time.perf_counter() - started,
        experiments_run=runs.ran,
        experiments_cached=runs.cached,
        claims_checked=len(runs.evidence),
        claim_report=tuple(claims.claim_report(runs)),
        units_written=len(units.written),
        units_reused=len(units.reused),
    )


def _experiments_and_claims(loaded: LoadedCourse, cache: Path, examples) -> claims.ExperimentOutcome:
    """Every lesson's experiments (cached) and the claims checked on them; when a claim fails, the
    examples' errors (if any) are reported with it."""
    try:
        return claims.run_and_check(loaded, cache)
    except ContentErrors as failed:
        try:
            examples.result()
        except ContentErrors as more:
            raise ContentErrors(failed.errors + more.errors) from None
        raise


def draw_figures(loaded: LoadedCourse, cache: Path, progress: bool = False, runs=None):
    """{(lesson id, block id): svg} for every figure, drawing only those not cached; a figure drawn
    from an experiment (`runs`: the build's claims.ExperimentOutcome) is keyed by its results too."""
    svgs: dict[tuple[str, str], str] = {}
    drawn = cached = 0
    folder = cache / "figures"
    blocks = [
        (lesson, block)
        for lesson in loaded.lessons
        for section in lesson.sections
        for block in section.blocks
        if isinstance(block, FigureBlock)
    ]
    for lesson, block in _progress(blocks, progress, "figures"):
        params = dict(block.params)
        run = (lesson.id, block.experiment) if block.experiment is not None else None
        keyed = params if run is None else {**params, "experiment results": runs.keys[run]}
        path = folder / f"{drawing.cache_key(loaded.root, block.figure, keyed)}.svg"
        if path.is_file():
            svg = path.read_text(encoding="utf-8")
            cached += 1
        else:
            svg = drawing.draw_svg(loaded.root, block.figure, params, runs.results[run] if run is not None else None)
            write_atomically(path, svg)
            drawn += 1
        svgs[(lesson.id, block.id)] = svg
    return svgs, drawn, cached


def _refuse_foreign_folder(out_dir: Path) -> None:
    """The build replaces out_dir wholesale: refuse when it holds something other than a site."""
    if not out_dir.exists():
        return
    if not out_dir.is_dir():
        raise ContentError(str(out_dir), "cannot build here: it is a file, not a folder")
    looks_like_a_site = (out_dir / "index.html").is_file() and (out_dir / "assets").is_dir()
    if any(out_dir.iterdir()) and not looks_like_a_site:
        raise ContentError(
            str(out_dir),
            "refusing to replace this folder: it is not empty and is not a site "
            "built by coursegen (no index.html and assets/); choose another --output",
        )


def _progress(items, enabled: bool, label: str):
    items = list(items)
    if not enabled or not items or not sys.stderr.isatty():
        return items
    from tqdm import tqdm

    return tqdm(items, desc=label, unit="", leave=False, file=sys.stderr)


def stale_guide_warnings(loaded) -> list[str]:
    """A warning when the course's STUDENTS.md is not what `coursegen guide` would write now."""
    from .student_guide import guide_markdown

    guide = Path(loaded.root) / "STUDENTS.md"
    if not guide.is_file():
        return []
    if guide.read_text(encoding="utf-8") == guide_markdown(loaded):
        return []
    return [
        "STUDENTS.md is not what `coursegen guide` writes now (a lesson, the submission route or the "
        "requirements changed); run `coursegen guide -o STUDENTS.md`"
    ]
