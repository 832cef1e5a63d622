"""`coursegen verify`: prove that every exercise is gradable, through the real sandbox.

For each exercise module:
    reference   solutions/<module>.py as a submission: every check passes
    stub        exercises/<module>.py as a submission: every check with points fails
    mistake     the reference plus one catalogued mistake: a check fails and its feedback
                shows the mistake's hint
    signature   each exercise has the same signature in the stub and in the solution
All submissions of a run are graded in one pytest session (grader.plugin.run_session).
"""

from __future__ import annotations

import ast
import importlib
import inspect
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from exercises.registry import MODULES, exercises_in
from grader.courseroot import course_root
from grader.plugin import Job, run_session
from grader.results import CheckResult


@dataclass
class VerifyRow:
    module: str
    subject: str  # "reference", "stub", "mistake <id>", "signature <name>"
    ok: bool
    detail: str = ""


def verify(
    modules: list[str] | None = None,
    *,
    seed: int | None = None,
    checks_dir: Path | None = None,
    sandbox_factory: Callable[[], Any] | None = None,
    lang: str = "en",
    progress: Callable[[str, str, int, int], None] | None = None,
) -> list[VerifyRow]:
    """Verify `modules` (default: all); one row per subject, in module order.

    `progress(module, subject, done, total)` is called as each subject is graded: `done` of
    the module's `total` subjects; `progress.begin({module: subjects})`, when it exists, once
    before grading starts."""
    root = course_root()
    from grader.grade import new_seed
    from solutions.mistakes import catalogue

    modules = list(modules or MODULES)
    jobs: list[Job] = []
    expectations: dict[int, tuple[str, str, Any]] = {}
    rows: list[VerifyRow] = []
    for module in modules:
        names = tuple(e.name for e in exercises_in(module))
        reference = (root / "solutions" / f"{module}.py").read_text(encoding="utf-8")
        stub_path = root / "exercises" / f"{module}.py"
        subjects: list[tuple[str, str, Any]] = [("reference", reference, None)]
        if stub_path.exists():
            subjects.append(("stub", stub_path.read_text(encoding="utf-8"), None))
        else:
            rows.append(VerifyRow(module, "stub", False, f"{stub_path.relative_to(root)} is missing"))
        imports = _mistake_imports(root, module)
        for mistake in catalogue(module):
            code = reference + "\n\n# ---- catalogued mistake ----\n" + imports + "\n" + mistake.source
            subjects.append((f"mistake {mistake.id}", code, mistake))
        for subject, code, mistake in subjects:
            key = len(jobs)
            jobs.append(Job(key=key, exercises=names, code=code, filename=f"{module}.py"))
            expectations[key] = (module, subject, mistake)
        rows.extend(_signature_rows(module, names))

    outcomes: dict[int, list[CheckResult]] = {}
    per_module = {m: sum(1 for e in expectations.values() if e[0] == m) for m in modules}
    done = dict.fromkeys(modules, 0)
    if progress is not None and hasattr(progress, "begin"):
        progress.begin(per_module)

    def on_result(job: Job, result: list[CheckResult]) -> None:
        outcomes[job.key] = result
        module, subject, _ = expectations[job.key]
        done[module] += 1
        if progress is not None:
            progress(module, subject, done[module], per_module[module])

    # the sandbox's warm worker starts while pytest starts; each submission loads while the
    # previous one is checked (a list of jobs never waits for a result)
    run_session(
        jobs,
        on_result,
        seed=new_seed() if seed is None else seed,
        lang=lang,
        checks_dir=checks_dir,
        sandbox_factory=sandbox_factory,
        reveal_hidden=True,
        prestart_sandbox=True,
        look_ahead=True,
    )
    for key, (module, subject, mistake) in expectations.items():
        rows.append(_judge(module, subject, mistake, outcomes.get(key, []), lang))
    rows.extend(hints_name_only_their_mistake(expectations, outcomes))
    order = {m: i for i, m in enumerate(modules)}
    kinds = {"reference": 0, "stub": 1, "mistake": 2, "signature": 3, "hints": 4}
    return sorted(rows, key=lambda r: (order[r.module], kinds[r.subject.split()[0]], r.subject))


def _judge(module: str, subject: str, mistake: Any, outcomes: list[CheckResult], lang: str) -> VerifyRow:
    if not outcomes:
        return VerifyRow(module, subject, False, "no checks for this module")
    if subject == "reference":
        failing = [o for o in outcomes if not o.passed]
        detail = "; ".join(f"{o.name} fails on the reference: {_first_line(o.output)}" for o in failing)
        return VerifyRow(module, subject, not failing, detail or f"{len(outcomes)} checks pass")
    if subject == "stub":
        passing = [o for o in outcomes if o.passed and o.max_score > 0]
        detail = "; ".join(f"{o.name} passes on the stub" for o in passing)
        return VerifyRow(module, subject, not passing, detail or "every check with points fails")
    caught = [o for o in outcomes if not o.passed and o.exercise == mistake.target]
    if not caught:
        return VerifyRow(module, subject, False, f"no check of {mistake.target} fails: the mistake is not caught")
    hint = mistake.hint.get(lang) or mistake.hint["en"]
    with_hint = [o for o in caught if hint in o.output]
    if not with_hint:
        return VerifyRow(module, subject, False, f"caught by {caught[0].name}, but no feedback shows its hint")
    visible = [o for o in with_hint if not o.hidden]
    note = "" if visible else " (only hidden checks show the hint)"
    return VerifyRow(module, subject, True, f"caught by {with_hint[0].name} with its hint{note}")


def hints_name_only_their_mistake(
    expectations: dict[int, tuple[str, str, Any]], outcomes: dict[int, list[CheckResult]]
) -> list[VerifyRow]:
    """The proof that a hint is shown only when its mistake explains the output: graded as a
    submission, no catalogued mistake gets the hint of ANOTHER catalogued mistake (the ids a
    check's output matched are in CheckResult.mistakes), and the reference and the stub get
    none. One row per module ("hints <module>")."""
    found: dict[str, list[str]] = {}
    for key, (module, subject, mistake) in expectations.items():
        found.setdefault(module, [])
        own = mistake.id if mistake is not None else None
        for outcome in outcomes.get(key, []):
            if mistake is not None and outcome.exercise != mistake.target:
                continue  # another exercise of the module calling the mistaken one shares its error
            for other in outcome.mistakes:
                if other != own:
                    found[module].append(f"{subject} shows the hint of {other} in {outcome.name}")
    return [
        VerifyRow(module, "hints", not wrong, "; ".join(dict.fromkeys(wrong)) or "every hint shown explains its output")
        for module, wrong in found.items()
    ]


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else "failed"


def _mistake_imports(root: Path, module: str) -> str:
    """The imports of solutions/mistakes/<module>.py (but not the catalogue itself), so that a
    mistake's source runs when appended to the reference."""
    path = root / "solutions" / "mistakes" / f"{module}.py"
    if not path.exists():
        return ""
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines()
    kept = []
    for node in ast.parse(source).body:
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("solutions"):
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)) and not (
            isinstance(node, ast.ImportFrom) and node.module == "__future__"
        ):
            kept.append("\n".join(lines[node.lineno - 1 : node.end_lineno]))
    return "\n".join(kept)


def _signature_rows(module: str, names: tuple[str, ...]) -> list[VerifyRow]:
    try:
        stub = importlib.import_module(f"exercises.{module}")
        solution = importlib.import_module(f"solutions.{module}")
    except Exception as exc:  # a broken stub or solution is named, not raised
        return [VerifyRow(module, "signature *", False, f"cannot import: {type(exc).__name__}: {exc}")]
    rows = []
    for name in names:
        mine, theirs = getattr(stub, name, None), getattr(solution, name, None)
        if mine is None or theirs is None:
            where = "stub" if mine is None else "solution"
            rows.append(VerifyRow(module, f"signature {name}", False, f"{name} is missing from the {where}"))
            continue
        stub_sig, solution_sig = _signature(mine), _signature(theirs)
        ok = stub_sig == solution_sig
        detail = "same in stub and solution" if ok else f"stub {stub_sig} != solution {solution_sig}"
        rows.append(VerifyRow(module, f"signature {name}", ok, detail))
    return rows


def _signature(obj: Any) -> str:
    if inspect.isclass(obj):
        parts = [f"__init__{inspect.signature(obj.__init__)}"]
        if "forward" in vars(obj):
            parts.append(f"forward{inspect.signature(vars(obj)['forward'])}")
        return ", ".join(parts)
    return str(inspect.signature(obj))


def format_table(rows: list[VerifyRow]) -> str:
    header = ("module", "subject", "result", "detail")
    table = [header] + [(r.module, r.subject, "ok" if r.ok else "FAIL", r.detail) for r in rows]
    widths = [max(len(row[i]) for row in table) for i in range(3)]
    lines = []
    for row in table:
        lines.append("  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row[:3])) + "  " + row[3])
        if row is header:
            lines.append("  ".join("-" * w for w in widths) + "  " + "-" * 6)
    return "\n".join(lines)
