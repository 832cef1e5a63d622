"""Build the course site: load, run examples, draw figures, write every output, swap in.

    build_site(root, out_dir) -> BuildReport

1. `load_course` (every content check; nothing is written if one fails);
2. code examples run in one child process for all lessons, cached (coursegen.cache);
3. meanwhile, the lessons' experiments run (cached by content hash) and their claims are checked
   (coursegen.claims: a claim that does not hold stops the build, located at the claim);
   figures drawn with matplotlib, cached the same way (those of an experiment from its results);
4. one loop over the units of every output of `coursegen.outputs.OUTPUTS` (assets, pages, search
   index, quiz pages, notebooks, slide decks): each unit is copied from the cache while its key is
   unchanged, else written, into a staging folder next to `out_dir` (cold and incremental builds
   are this same loop; a cold one reuses nothing);
5. the staging folder replaces `out_dir` only when all of that succeeded.

A new output is a module of coursegen/outputs/ and its name in OUTPUTS; nothing here changes.
"""

from __future__ import annotations

import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from . import claims, drawing, outputs
from grader.atomic import staged_folder
from grader.digests import digest_bytes, file_digest

from .cache import Cache
from .errors import ContentError, ContentErrors
from .examples import ExampleRunner
from .memo import MEMO
from .loader import CACHE_DIR_NAME, LoadedCourse, load_course
from .schema import FigureBlock
from .pages import make_env


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
    written: tuple[str, ...] = ()  # the names of the units written (coursegen.outputs)
    reused: tuple[str, ...] = ()  # the names of the units copied from the cache
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

    `incremental`: reuse each output unit (a lesson's pages, notebooks, quiz pages, decks; the
    course pages; the search index; the assets) whose inputs are unchanged since a build with the
    same cache (coursegen.outputs); the bytes written are the same either way."""
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
        deck_svgs = draw_figures(loaded, cache, False, runs, deck=True)[0]  # the slides' renditions
        example_outputs = examples.result()  # raises ContentErrors naming every failing example

    env = make_env(root, cache_dir=cache)
    env.globals["example_outputs"] = example_outputs
    env.globals["figure_svgs"] = svgs
    env.globals["deck_figure_svgs"] = deck_svgs
    env.globals["claim_evidence"] = runs.evidence
    env.globals.setdefault("cache_dir", cache)  # the quiz and notebook writers' caches, beside the others

    _refuse_foreign_folder(out_dir)
    with staged_folder(out_dir, label="building") as staging:  # a site is readable like any folder: 0755
        build = outputs.BuildInputs.make(loaded, env, Cache(cache), staging, reuse=incremental)
        written, reused = write_units(build, progress)
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
        units_written=len(written),
        units_reused=len(reused),
        written=tuple(written),
        reused=tuple(reused),
    )


def write_units(build: outputs.BuildInputs, progress: bool = False) -> tuple[list[str], list[str]]:
    """The build's one loop: every unit of every output module, copied from the cache while its key
    (with its module's source) is unchanged, else written. Returns (written, reused) unit names.
    Content errors of every unit are collected and raised together."""
    written: list[str] = []
    reused: list[str] = []
    errors: list[ContentError] = []

    def collect(failed: ContentErrors) -> None:
        errors.extend(e for e in failed.errors if str(e) not in {str(x) for x in errors})

    for module in _progress(outputs.output_modules(), progress, "writing"):
        source = file_digest(Path(module.__file__ or ""))
        produced = module.units(build)
        try:
            for unit in produced:
                try:
                    key = digest_bytes(source, unit.key)
                    if build.cache.place_unit(build.staging, unit.name, key, unit.write, reuse=build.reuse):
                        reused.append(unit.name)
                    else:
                        written.append(unit.name)
                except ContentErrors as failed:
                    collect(failed)
        except ContentErrors as failed:  # the output itself could not make its units
            collect(failed)
        finally:
            close = getattr(produced, "close", None)
            if close is not None:
                close()
    if errors:
        raise ContentErrors(errors)
    return written, reused


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


def draw_figures(loaded: LoadedCourse, cache: Path, progress: bool = False, runs=None, *, deck: bool = False):
    """{(lesson id, block id): svg} for every figure, drawing only those not cached; a figure drawn
    from an experiment (`runs`: the build's claims.ExperimentOutcome) is keyed by its results too.
    `deck`: the slide decks' rendition of each figure (drawing.deck_sized: the same data, sized for
    a 1280x720 slide), cached apart from the page's."""
    svgs: dict[tuple[str, str], str] = {}
    drawn = cached = 0
    store = Cache(cache)
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
        if deck:
            keyed = {**keyed, "deck rendition": drawing.deck_version()}
        key = drawing.cache_key(loaded.root, block.figure, keyed)
        svg = store.get("figures", key)
        if isinstance(svg, str):
            cached += 1
        else:
            results = runs.results[run] if run is not None else None
            svg = drawing.draw_svg(loaded.root, block.figure, params, results, deck=deck)
            store.put("figures", key, svg)
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
