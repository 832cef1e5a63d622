"""Build the course site: load, run examples, draw figures, write every output, swap in.

    build_site(root, out_dir) -> BuildReport

1. `load_course` (every content check; nothing is written if one fails);
2. code examples run in one child process for all lessons, cached in `.coursegen-cache/`;
3. figures drawn with matplotlib, cached the same way;
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

from . import drawing
from grader.atomic import staged_folder, write_atomically

from .errors import ContentError
from .examples import ExampleRunner
from .memo import MEMO
from .loader import CACHE_DIR_NAME, LoadedCourse, load_course
from .schema import FigureBlock
from .search import write_search_index
from .site import make_env, write_assets, write_pages
from .quiz.site import write_quiz_pages
from .notebooks import write_notebooks
from .slides.deck import write_decks

OUTPUT_WRITERS = [
    write_assets,
    write_pages,
    write_search_index,
    write_quiz_pages,
    write_notebooks,
    write_decks,
]


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

    def summary(self) -> str:
        return (
            f"Built {self.pages} pages ({self.files} files, {self.bytes / 1024:.0f} KB) for "
            f"{self.lessons} lessons into {self.out_dir} in {self.seconds:.1f} s; examples: "
            f"{self.examples_executed} run, {self.examples_cached} cached; figures: "
            f"{self.figures_drawn} drawn, {self.figures_cached} cached."
        )


def build_site(
    root: Path | str, out_dir: Path | str, *, progress: bool = True, cache_dir: Path | str | None = None
) -> BuildReport:
    """Build the site of the course at `root` into `out_dir` (atomically, deterministically)."""
    started = time.perf_counter()
    root = Path(root).resolve()
    out_dir = Path(out_dir).resolve()
    cache = Path(cache_dir) if cache_dir else root / CACHE_DIR_NAME
    loaded = load_course(root, cache_dir=cache)

    runner = ExampleRunner(cache)
    # The examples of every lesson run in one child process (one torch import); the figures
    # are drawn in this process meanwhile, on the other core.
    with ThreadPoolExecutor(max_workers=1) as pool:
        examples = pool.submit(runner.course_outputs, loaded)
        svgs, drawn, cached = draw_figures(loaded, cache, progress)
        outputs = examples.result()  # raises ContentErrors naming every failing example

    env = make_env(root, cache_dir=cache)
    env.globals["example_outputs"] = outputs
    env.globals["figure_svgs"] = svgs

    _refuse_foreign_folder(out_dir)
    with staged_folder(out_dir, label="building") as staging:  # a site is readable like any folder: 0755
        for writer in _progress(OUTPUT_WRITERS, progress, "writing"):
            writer(loaded, staging, env)
    MEMO.save(prune=True)
    files = [p for p in out_dir.rglob("*") if p.is_file()]
    return BuildReport(
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
    )


def draw_figures(loaded: LoadedCourse, cache: Path, progress: bool = False):
    """{(lesson id, block id): svg} for every figure, drawing only those not cached."""
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
        path = folder / f"{drawing.cache_key(block.figure, params)}.svg"
        if path.is_file():
            svg = path.read_text(encoding="utf-8")
            cached += 1
        else:
            svg = drawing.draw_svg(block.figure, params)
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
            "built by coursegen (no index.html and assets/); choose another --out",
        )


def _progress(items, enabled: bool, label: str):
    items = list(items)
    if not enabled or not items or not sys.stderr.isatty():
        return items
    from tqdm import tqdm

    return tqdm(items, desc=label, unit="", leave=False, file=sys.stderr)
