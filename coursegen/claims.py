"""Experiments a lesson runs at build time, and the claims about them the build checks.

A lesson that trains something and explains the result states what the run shows as claims,
proven on the run's own results like its code examples are (docs/authoring.md, "Experiments and
claims"):

    experiments:                     # runs the build makes; results cached by content hash
      - {id: runs, run: my_runs, params: {seeds: [0, 1, 2, 3, 4]}}
    claims:
      - id: a-beats-b
        check: beats                 # a @claim function of the course's content/plugins/
        params: {winner: a, loser: b}
        text: {en: "...", zh: "..."} # what the page states, shown with the per-seed evidence
        section: results             # where the page shows it (default: the last section)

A course registers, in its plugin modules (coursegen.plugin):

    @experiment(sources=(...), versions=(...))   function(**params) -> JSON-able results; run only
                                                 when its cache key changes (its module's source,
                                                 params, the `sources` files, the versions of the
                                                 `versions` packages); it runs whatever it needs in
                                                 its own child processes (the build imports no torch)
    @claim(experiment="my_runs")                 function(results, **params) -> Evidence

`Evidence(holds, summary, seeds, rows)`: whether the claim holds, a one-line summary (neutral, or {en, zh}),
and per-seed values (`Measure(label, values)`, one value per seed) whose spread the page reports.
A claim that does not hold fails the build at the claim (file:line:column) with its summary and
evidence. A figure block with `experiment: <id>` is drawn from the same results (`results=`).
"""

from __future__ import annotations

import hashlib
import inspect
import json
import math
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable


from .errors import ContentError, ContentErrors, did_you_mean
from .plugin_loading import Registrations

EXPERIMENT_VERSION = "1"  # bump to invalidate every cached experiment when this engine changes them


@dataclass(frozen=True)
class Measure:
    """One quantity measured per seed. `label`: language-neutral text, or {"en": ..., "zh": ...}."""

    label: str | dict[str, str]
    values: tuple[float, ...]
    decimals: int = 3


@dataclass(frozen=True)
class Evidence:
    holds: bool
    summary: str | dict[str, str]  # one line: language-neutral (numbers, names, symbols), or {"en", "zh"}
    seeds: tuple[int, ...] = ()
    rows: tuple[Measure, ...] = ()
    margin: float | None = None  # the smallest distance of any seed's value from the claim's threshold
    required_margin: float = 0.0  # the distance every seed must keep (so another processor make cannot flip it)


@dataclass(frozen=True)
class ExperimentFunction:
    name: str
    func: Callable[..., Any]
    sources: tuple[str, ...]  # course files (relative to the course root) that decide the results
    versions: tuple[str, ...]  # packages whose version decides the results


@dataclass(frozen=True)
class ClaimFunction:
    name: str
    func: Callable[..., Evidence]
    experiment: str  # the @experiment function whose results it reads


EXPERIMENTS: Registrations[ExperimentFunction] = Registrations()  # name -> experiment, per course
CLAIMS: Registrations[ClaimFunction] = Registrations()  # name -> claim function, per course


def experiment(
    func: Callable | None = None, *, sources: tuple[str, ...] = (), versions: tuple[str, ...] = ()
) -> Callable:
    """Register an experiment under its function's name (`@experiment` or `@experiment(sources=..., versions=...)`)."""

    def register(function: Callable) -> Callable:
        registered = EXPERIMENTS.of_module(function.__module__)
        if function.__name__ in registered:
            raise ValueError(f"experiment '{function.__name__}' is defined twice")
        _keyword_only_with_defaults(function, "experiment")
        registered[function.__name__] = ExperimentFunction(function.__name__, function, tuple(sources), tuple(versions))
        return function

    return register(func) if func is not None else register


def claim(*, experiment: str) -> Callable:
    """Register a claim function under its name: `function(results, **params) -> Evidence`, reading
    the results of the experiment function named `experiment`."""

    def register(function: Callable) -> Callable:
        registered = CLAIMS.of_module(function.__module__)
        if function.__name__ in registered:
            raise ValueError(f"claim '{function.__name__}' is defined twice")
        _keyword_only_with_defaults(function, "claim", skip_first=True)
        registered[function.__name__] = ClaimFunction(function.__name__, function, experiment)
        return function

    return register


def _keyword_only_with_defaults(function: Callable, what: str, skip_first: bool = False) -> None:
    parameters = list(inspect.signature(function).parameters.values())[1 if skip_first else 0 :]
    for p in parameters:
        if p.kind is not inspect.Parameter.KEYWORD_ONLY or p.default is inspect.Parameter.empty:
            raise TypeError(f"{what} '{function.__name__}': parameter '{p.name}' must be keyword-only with a default")


def experiments(root: str | Path) -> dict[str, ExperimentFunction]:
    """The experiments of the course at `root`, by name (its plugin modules loaded on first use)."""
    return EXPERIMENTS.of(root)


def claims(root: str | Path) -> dict[str, ClaimFunction]:
    """The claim functions of the course at `root`, by name."""
    return CLAIMS.of(root)


# ---- checks that run no experiment (load time: build, check) ---------------------------------


def _param_problems(function: Callable, params: dict[str, Any], what: str, skip_first: bool) -> list[tuple[str, str]]:
    from .drawing import _matches, param_type

    accepted = dict(list(inspect.signature(function).parameters.items())[1 if skip_first else 0 :])
    problems = []
    for name, value in params.items():
        if name not in accepted:
            problems.append(
                (name, f"unknown parameter '{name}' for {what} (expected one of: {', '.join(accepted) or 'none'})")
            )
        elif not _matches(value, param_type(accepted[name].default)):
            expected = param_type(accepted[name].default).__name__
            problems.append(
                (name, f"parameter '{name}' of {what} must be {expected}, got {type(value).__name__} {value!r}")
            )
    return problems


def lesson_problems(root: str | Path, lesson: Any) -> list[tuple[tuple, str]]:
    """(path in the lesson file, message) for every experiment, claim and experiment figure of a
    lesson of the course at `root` that cannot run: unknown functions (with a did-you-mean),
    parameters they do not take, a claim reading another experiment than its function's, a section
    that does not exist."""
    from .drawing import figures
    from .schema import FigureBlock

    problems: list[tuple[tuple, str]] = []
    known_runs = experiments(root)
    by_id = {e.id: e for e in lesson.experiments}
    seen: set[str] = set()
    for index, run in enumerate(lesson.experiments):
        if run.id in seen:
            problems.append((("experiments", index, "id"), f"experiment id '{run.id}' is used twice"))
        seen.add(run.id)
        function = known_runs.get(run.run)
        if function is None:
            problems.append(
                (("experiments", index, "run"), _unknown("experiment function", run.run, known_runs, "@experiment"))
            )
            continue
        for name, message in _param_problems(function.func, dict(run.params), f"experiment '{run.run}'", False):
            problems.append((("experiments", index, "params", name), message))
    known_claims = claims(root)
    section_ids = [s.id for s in lesson.sections]
    seen = set()
    for index, item in enumerate(lesson.claims):
        where = ("claims", index)
        if item.id in seen:
            problems.append((where + ("id",), f"claim id '{item.id}' is used twice"))
        seen.add(item.id)
        if item.section is not None and item.section not in section_ids:
            problems.append(
                (
                    where + ("section",),
                    f"no section '{item.section}'{did_you_mean(item.section, section_ids)} in this lesson",
                )
            )
        run = _experiment_of(lesson, item.experiment)
        if run is None:
            wanted = item.experiment or "(none given)"
            detail = f"one of: {', '.join(by_id)}" if by_id else "the lesson declares no experiments:"
            problems.append(
                (where + ("experiment",), f"claim '{item.id}' reads experiment {wanted}: expected {detail}")
            )
        checker = known_claims.get(item.check)
        if checker is None:
            problems.append((where + ("check",), _unknown("claim function", item.check, known_claims, "@claim")))
            continue
        if run is not None and checker.experiment != run.run:
            problems.append(
                (
                    where + ("check",),
                    f"claim function '{item.check}' reads results of '{checker.experiment}', "
                    f"but experiment '{run.id}' runs '{run.run}'",
                )
            )
        for name, message in _param_problems(checker.func, dict(item.params), f"claim function '{item.check}'", True):
            problems.append((where + ("params", name), message))
    for s_index, section in enumerate(lesson.sections):
        for b_index, block in enumerate(section.blocks):
            if isinstance(block, FigureBlock) and block.experiment is not None:
                path = ("sections", s_index, "blocks", b_index, "experiment")
                if block.experiment not in by_id:
                    problems.append(
                        (
                            path,
                            f"no experiment '{block.experiment}' in this lesson (experiments: {', '.join(by_id) or 'none'})",
                        )
                    )
                drawer = figures(root).get(block.figure)
                if drawer is not None and "results" not in inspect.signature(drawer).parameters:
                    problems.append(
                        (path, f"figure '{block.figure}' takes no 'results' parameter to draw an experiment from")
                    )
    return problems


def _unknown(what: str, name: str, known: dict, decorator: str) -> str:
    listed = (
        f"known: {', '.join(sorted(known))}"
        if known
        else f"this course defines none: add {decorator} functions in content/plugins/"
    )
    return f"unknown {what} '{name}'{did_you_mean(name, known)} ({listed})"


def _experiment_of(lesson: Any, experiment_id: str | None):
    if experiment_id is None:
        return lesson.experiments[0] if len(lesson.experiments) == 1 else None
    return next((e for e in lesson.experiments if e.id == experiment_id), None)


# ---- running (build) -----------------------------------------------------------------------


def cache_key(root: str | Path, run_name: str, params: dict[str, Any]) -> str:
    """A hash of everything that decides the results of an experiment of the course at `root`: its
    plugin module's source, its params, the content of its `sources` files (relative to `root`),
    the versions of its `versions` packages."""
    from importlib.metadata import PackageNotFoundError, version

    function = experiments(root)[run_name]
    module_file = Path(function.func.__code__.co_filename)
    versions = {}
    for package in function.versions:
        try:
            versions[package] = version(package)
        except PackageNotFoundError:
            versions[package] = "absent"
    payload = {
        "engine": EXPERIMENT_VERSION,
        "run": run_name,
        "params": params,
        "module": hashlib.sha256(module_file.read_bytes()).hexdigest(),
        "sources": {name: _file_hash(Path(root) / name) for name in function.sources},
        "versions": versions,
    }
    return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()


def _file_hash(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "missing"


@dataclass
class ExperimentOutcome:
    results: dict[tuple[str, str], Any] = field(default_factory=dict)  # (lesson id, experiment id) -> results
    keys: dict[tuple[str, str], str] = field(default_factory=dict)  # the same -> cache key
    evidence: dict[tuple[str, str], Evidence] = field(default_factory=dict)  # (lesson id, claim id) -> Evidence
    ran: int = 0
    cached: int = 0
    seconds: float = 0.0


def run_and_check(loaded: Any, cache: Path) -> ExperimentOutcome:
    """Run (or read from `cache`/experiments/) every lesson's experiments and check every claim.
    Raises ContentErrors naming every claim that does not hold (at the claim) or cannot be checked."""
    import time

    started = time.perf_counter()
    outcome = ExperimentOutcome()
    errors: list[ContentError] = []
    from .cache import Cache

    store = Cache(cache)
    for lesson in loaded.lessons:
        for index, run in enumerate(lesson.experiments):
            params = dict(run.params)
            key = cache_key(loaded.root, run.run, params)
            results = store.get("experiments", key)
            if results is not None:
                outcome.cached += 1
            else:
                try:
                    results = experiments(loaded.root)[run.run].func(**params)
                    text = json.dumps(results, sort_keys=True)
                except Exception as exc:  # noqa: BLE001 - the course's run failed: report it located
                    errors.append(
                        ContentError(
                            loaded.location(lesson.id, ("experiments", index)),
                            f"experiment '{run.id}' ({run.run}) failed: {type(exc).__name__}: {exc}",
                        )
                    )
                    continue
                results = json.loads(text)  # exactly what a cached build reads
                store.put("experiments", key, results)
                outcome.ran += 1
            outcome.results[(lesson.id, run.id)] = results
            outcome.keys[(lesson.id, run.id)] = key
        for index, item in enumerate(lesson.claims):
            run = _experiment_of(lesson, item.experiment)
            if run is None or (lesson.id, run.id) not in outcome.results:
                continue  # its experiment failed (reported above)
            where = loaded.location(lesson.id, ("claims", index))
            try:
                evidence = claims(loaded.root)[item.check].func(
                    outcome.results[(lesson.id, run.id)], **dict(item.params)
                )
                problem = _evidence_problem(evidence)
            except Exception as exc:  # noqa: BLE001 - the claim function failed: report it at the claim
                errors.append(
                    ContentError(
                        where, f"claim '{item.id}' ({item.check}) could not be checked: {type(exc).__name__}: {exc}"
                    )
                )
                continue
            if problem:
                errors.append(ContentError(where, f"claim '{item.id}' ({item.check}): {problem}"))
                continue
            if not evidence.holds:
                errors.append(
                    ContentError(
                        where,
                        f"claim '{item.id}' does not hold on the experiment's results: {_label(evidence.summary, 'en')} "
                        f"[{evidence_text(evidence)}]: rewrite the claim (and the text that relies on it) "
                        f"from what the run shows",
                    )
                )
                continue
            if evidence.margin is not None and not evidence.margin >= evidence.required_margin:
                errors.append(
                    ContentError(
                        where,
                        f"claim '{item.id}' holds with too small a margin: a seed lies {evidence.margin:.3f} from "
                        f"its threshold, the claim requires {evidence.required_margin} [{evidence_text(evidence)}]: "
                        f"move the threshold away from the seeds (and the text with it), or run more seeds",
                    )
                )
                continue
            outcome.evidence[(lesson.id, item.id)] = evidence
    outcome.seconds = time.perf_counter() - started
    if errors:
        raise ContentErrors(errors)
    return outcome


def _evidence_problem(evidence: Any) -> str | None:
    if not isinstance(evidence, Evidence):
        return f"a claim function returns Evidence, got {type(evidence).__name__}"
    if isinstance(evidence.summary, dict) and "en" not in evidence.summary:
        return "a bilingual summary needs at least 'en'"
    for row in evidence.rows:
        if len(row.values) != len(evidence.seeds):
            return f"evidence row {_label(row.label, 'en')!r} has {len(row.values)} value(s) for {len(evidence.seeds)} seed(s)"
    return None


def _label(label: str | dict[str, str], lang: str) -> str:
    return label if isinstance(label, str) else label.get(lang) or label["en"]


def spread(values: tuple[float, ...], decimals: int) -> tuple[str, str]:
    """("mean ± sd", "min–max") of one measure over the seeds (sd: the sample standard deviation)."""
    finite = [v for v in values if math.isfinite(v)]
    if not finite:
        return "–", "–"
    mean = statistics.fmean(finite)
    sd = statistics.stdev(finite) if len(finite) > 1 else 0.0
    return f"{mean:.{decimals}f} ± {sd:.{decimals}f}", f"{min(finite):.{decimals}f}–{max(finite):.{decimals}f}"


def evidence_text(evidence: Evidence, lang: str = "en") -> str:
    """The per-seed values as one line: `label: v0, v1, ... (mean ± sd)`; rows joined by '; '."""
    parts = []
    for row in evidence.rows:
        values = ", ".join(f"{v:.{row.decimals}f}" for v in row.values)
        parts.append(f"{_label(row.label, lang)}: {values} ({spread(row.values, row.decimals)[0]})")
    seeds = f"seeds {', '.join(map(str, evidence.seeds))}: " if evidence.seeds else ""
    return seeds + "; ".join(parts) + margin_text(evidence, lang, prefix="; ")


def margin_text(evidence: Evidence, lang: str = "en", prefix: str = "") -> str:
    """'smallest margin 0.061 (required 0.05)', or '' for a claim that states no threshold."""
    if evidence.margin is None:
        return ""
    if lang == "zh":
        return f"{prefix}最小余量 {evidence.margin:.3f}（要求 {evidence.required_margin}）"
    return f"{prefix}smallest margin {evidence.margin:.3f} (required {evidence.required_margin})"


def claim_report(outcome: ExperimentOutcome) -> list[str]:
    """One line per checked claim: lesson/claim, its per-seed values and its smallest margin."""
    return [
        f"{lesson}/{claim_id}: {evidence_text(evidence)}" for (lesson, claim_id), evidence in outcome.evidence.items()
    ]
