"""`coursegen verify`: prove that every exercise is gradable, through the real sandbox.

For each exercise module:
    reference   solutions/<module>.py as a submission: every check passes
    stub        exercises/<module>.py as a submission: every check with points fails
    mistake     the reference plus one catalogued mistake: a check fails and its feedback
                shows the mistake's hint
    signature   each exercise has the same signature in the stub and in the solution
    values      every check fails an odd student value (10**400, a complex or NaN-filled answer, None,
                an object whose operators raise, ...) with a message, never with check_error
                (grader/verifying/odd_values.py: one probe submission per value kind, all modules)
All submissions of a run are graded in one pytest session (grader.running.session.run_session).

With a `cache` (grader/verifying/proof_cache.py), a module's reference, stub, mistakes and signatures
are each one proof whose key covers every file it depends on (grader/verifying/verify_keys.py): a
passing proof whose key is unchanged is reused, not graded again; when every proof is reused,
nothing is imported that needs torch and no sandbox starts.
"""

from __future__ import annotations

import ast
import inspect
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from grader.course import Course
from grader.running.session import Job, run_session
from grader.verifying.proof_cache import ProofCache
from grader.reporting.results import CheckResult


@dataclass
class VerifyRow:
    module: str
    subject: str  # "reference", "stub", "mistake <id>", "signature <name>"
    ok: bool
    detail: str = ""


def verify(
    course: Course,
    modules: list[str] | None = None,
    *,
    seed: int | None = None,
    checks_dir: Path | None = None,
    sandbox_factory: Callable[[], Any] | None = None,
    lang: str = "en",
    progress: Callable[[str, str, int, int], None] | None = None,
    cache: ProofCache | None = None,
    odd_values: tuple[str, ...] | None = None,
) -> list[VerifyRow]:
    """Verify `modules` (default: all) of `course`, with its checks (or those in `checks_dir`);
    one row per subject, in module order.

    `progress(module, subject, done, total)` is called as each subject is graded: `done` of
    the module's `total` subjects; `progress.begin({module: subjects})`, when it exists, once
    before grading starts; `progress.values(kind, done, total)`, when it exists, as each
    odd-value probe is graded. With `cache`, proofs whose inputs are unchanged are reused.

    `odd_values`: the value kinds the "values" proof probes (grader/verifying/odd_values.py);
    by default every kind of the course with the real sandbox, none with a stand-in sandbox
    (its values do not cross the sandbox's wire)."""
    root = course.root
    EXERCISES, MODULES, exercises_in = course.registry.exercises, course.registry.modules, course.registry.exercises_in
    from grader.running.grade import new_seed
    from grader.verifying.verify_keys import VerifyKeys

    from grader.verifying import odd_values as odd

    keys = VerifyKeys(root, Path(checks_dir) if checks_dir else course.checks_dir)
    if odd_values is None:
        odd_values = odd.kinds_for(course) if sandbox_factory is None else ()
    probed: list[str] = []  # modules whose values proof runs in this session
    by_name = {e.name: e.module for e in EXERCISES}
    modules = list(modules or MODULES)
    jobs: list[Job] = []
    expectations: dict[int, tuple[str, str, Any]] = {}
    rows: list[VerifyRow] = []
    pending: dict[tuple[str, str], tuple[str, str]] = {}  # (module, group) -> (cache name, key)
    hint_modules: set[str] = set()  # modules whose `hints` proof runs in this session
    signature_key = keys.signatures()
    for module in modules:
        names = tuple(e.name for e in exercises_in(module))
        common = keys.exercise_common(module, by_name)
        reference = (root / "solutions" / f"{module}.py").read_text(encoding="utf-8")
        stub_path = root / "exercises" / f"{module}.py"
        groups = {
            "reference": _key(cache, "reference", common, lang, reference),
            "stub": _key(cache, "stub", common, lang, stub_path.read_bytes() if stub_path.exists() else b""),
            "mistakes": _key(cache, "mistakes", common, lang),
            "signature": _key(cache, "signature", signature_key, module),
            # no hint fires for another mistake: proven on the reference's and every mistake's
            # outcomes (and the stub's, when it runs), so it needs those to run when it is not reused
            "hints": _key(cache, "hints", common, lang, reference),
        }
        if odd_values:
            groups["values"] = _key(cache, "values", keys.probes(), module, lang, ",".join(odd_values))
        todo = set()
        for group, group_key in groups.items():
            payload = cache.get(group, f"{module}/{group}", group_key) if cache is not None else None
            if payload is None:
                todo.add(group)
                pending[(module, group)] = (f"{module}/{group}", group_key)
            else:
                rows.extend(VerifyRow(module, subject, True, detail) for subject, detail in payload)
        if "hints" in todo:
            hint_modules.add(module)
            for group in ("reference", "mistakes"):
                if group not in todo:
                    todo.add(group)
                    pending[(module, group)] = (f"{module}/{group}", groups[group])
                    rows[:] = [r for r in rows if not (r.module == module and _group(r.subject) == group)]
        subjects: list[tuple[str, str, Any]] = []
        if "reference" in todo:
            subjects.append(("reference", reference, None))
        if "stub" in todo:
            if stub_path.exists():
                subjects.append(("stub", stub_path.read_text(encoding="utf-8"), None))
            else:
                rows.append(VerifyRow(module, "stub", False, f"{stub_path.relative_to(root)} is missing"))
        if "mistakes" in todo:
            imports = _mistake_imports(root, module)
            for mistake in course.catalogue(module):
                code = reference + "\n\n# ---- catalogued mistake ----\n" + imports + "\n" + mistake.source
                subjects.append((f"mistake {mistake.id}", code, mistake))
        for subject, code, mistake in subjects:
            key = len(jobs)
            jobs.append(Job(key=key, exercises=names, code=code, filename=f"{module}.py"))
            expectations[key] = (module, subject, mistake)
        if "values" in todo:
            probed.append(module)
        if "signature" in todo:
            _torch_ready(course)
            rows.extend(_signature_rows(course, module, names))

    probes: dict[int, str] = {}  # job key -> value kind
    if probed:
        exercises = tuple(e.name for m in probed for e in exercises_in(m))
        for kind in odd_values:
            key = len(jobs)
            code = odd.probe_source(course, probed, kind)
            jobs.append(Job(key=key, exercises=exercises, code=code, filename="odd_values.py", probe=True))
            probes[key] = kind
    outcomes: dict[int, list[CheckResult]] = {}
    per_module = {m: sum(1 for e in expectations.values() if e[0] == m) for m in modules}
    done = dict.fromkeys(modules, 0)
    if progress is not None and hasattr(progress, "begin") and jobs:
        progress.begin({m: n for m, n in per_module.items() if n})

    def on_result(job: Job, result: list[CheckResult]) -> None:
        outcomes[job.key] = result
        if job.key in probes:
            if progress is not None and hasattr(progress, "values"):
                progress.values(probes[job.key], len(outcomes) - sum(done.values()), len(probes))
            return
        module, subject, _ = expectations[job.key]
        done[module] += 1
        if progress is not None:
            progress(module, subject, done[module], per_module[module])

    if jobs:
        _torch_ready(course)
        # the sandbox's warm worker starts while pytest starts; each submission loads while the
        # previous one is checked (a list of jobs never waits for a result)
        run_session(
            jobs,
            on_result,
            course=course,
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
    rows.extend(hints_name_only_their_mistake(expectations, outcomes, hint_modules))
    rows.extend(_values_rows(course, probed, probes, outcomes))
    rows = _slow_instructor_code(course, rows, modules)
    if cache is not None:
        _store(cache, rows, pending)
    order = {m: i for i, m in enumerate(modules)}
    kinds = {"reference": 0, "stub": 1, "mistake": 2, "signature": 3, "hints": 4, "values": 5}
    return sorted(rows, key=lambda r: (order[r.module], kinds[r.subject.split()[0]], r.subject))


def _key(cache: ProofCache | None, kind: str, *parts: bytes | str) -> str:
    return cache.key(kind, *parts) if cache is not None else ""


def _group(subject: str) -> str:
    kind = subject.split()[0]
    return {"mistake": "mistakes"}.get(kind, kind)


def _store(cache: ProofCache, rows: list[VerifyRow], pending: dict[tuple[str, str], tuple[str, str]]) -> None:
    """Store each proven group whose every row passed (a failing proof is never cached);
    a module's mistakes with no catalogued mistake is a (passing) empty group."""
    grouped: dict[tuple[str, str], list[VerifyRow]] = {}
    for row in rows:
        grouped.setdefault((row.module, _group(row.subject)), []).append(row)
    for (module, group), (name, key) in pending.items():
        cache.ran(group, name)
        members = grouped.get((module, group), [])
        if group != "mistakes" and not members:
            continue
        if all(r.ok for r in members):
            cache.put(group, name, key, sorted([r.subject, r.detail] for r in members))


def _torch_ready(course: Course) -> None:
    """Before the first proof that runs course code: launch the sandbox's warm worker (it imports
    torch meanwhile) and use one thread here (the parallelism is the sandboxed children's)."""
    from grader.scaleout.grading_process import one_thread
    from grader.prestart import start_early

    start_early(course.preload_modules)
    one_thread(course)


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


def _values_rows(
    course: Course, modules: list[str], probes: dict[int, str], outcomes: dict[int, list[CheckResult]]
) -> list[VerifyRow]:
    """One "values" row per probed module: every check of its exercises failed (or passed) every
    odd-value probe with a message, or the located checks that broke (grader/verifying/odd_values.py)."""
    from grader.verifying.odd_values import faults

    rows = []
    for module in modules:
        names = {e.name for e in course.registry.exercises_in(module)}
        mine = {kind: [o for o in outcomes.get(key, []) if o.exercise in names] for key, kind in probes.items()}
        graded = sum(len(results) for results in mine.values())
        if not graded:
            rows.append(VerifyRow(module, "values", False, "no check ran on the odd-value probes"))
            continue
        found = faults(mine)
        detail = "; ".join(found) or (
            f"{len(mine)} odd values x {graded // len(mine)} checks: each refused or compared with a message"
        )
        rows.append(VerifyRow(module, "values", not found, detail))
    return rows


def _slow_instructor_code(course: Course, rows: list[VerifyRow], modules: list[str]) -> list[VerifyRow]:
    """Fail, naming it, every reference and catalogued mistake that did not return within
    Limits.instructor_seconds when the grader ran it (grader/checking/instructor_limit.py)."""
    instructor_limit = sys.modules.get("grader.checking.instructor_limit")
    if instructor_limit is None:  # no instructor code ran in this process (every proof was reused): none timed out,
        return rows  # and a no-change verify must not import the grading engine (grader.checking loads the sandbox)
    exercises_in, catalogue = course.registry.exercises_in, course.catalogue

    module_of = {name: module for module in modules for name in (e.name for e in exercises_in(module))}
    mistakes = {m.id: m for module in modules for m in catalogue(module)}
    for (kind, name), seconds in instructor_limit.timed_out():
        detail = (
            f"the {kind} {name} did not return within {seconds:g} s when the grader ran it "
            f"({'to match its hint to wrong answers' if kind == 'mistake' else 'for the expected values'}; "
            "limit: COURSEGEN_SANDBOX_LIMITS=instructor_seconds=N)"
        )
        if kind == "mistake" and name in mistakes:
            mistake = mistakes[name]
            module = module_of.get(mistake.target, modules[0])
            subject = f"mistake {name}"
        else:
            module, subject = module_of.get(name, modules[0]), "reference"
        rows = [r for r in rows if not (r.module == module and r.subject == subject)]
        rows.append(VerifyRow(module, subject, False, detail))
    return rows


def hints_name_only_their_mistake(
    expectations: dict[int, tuple[str, str, Any]],
    outcomes: dict[int, list[CheckResult]],
    modules: set[str] | None = None,
) -> list[VerifyRow]:
    """The proof that a hint is shown only when its mistake explains the output: graded as a
    submission, the reference and the stub get no hint, and every catalogued mistake is named
    alone by at least one check (the ids a check's output matched are in CheckResult.mistakes).

    A check whose random inputs happen to give two mistakes the same output shows both hints,
    and both explain that output (each mistake, run on those inputs, produces it); what must
    never happen is a mistake that no check can tell from another: its student would never
    read its own hint alone. One row per module ("hints <module>")."""
    found: dict[str, list[str]] = {}
    for key, (module, subject, mistake) in expectations.items():
        if modules is not None and module not in modules:
            continue  # its proof is reused from the cache
        found.setdefault(module, [])
        own = mistake.id if mistake is not None else None
        shared: list[str] = []
        named_alone = False
        for outcome in outcomes.get(key, []):
            if mistake is not None and outcome.exercise != mistake.target:
                continue  # another exercise of the module calling the mistaken one shares its error
            others = [other for other in outcome.mistakes if other != own]
            if own is not None and list(outcome.mistakes) == [own]:
                named_alone = True
            shared += [f"{subject} shows the hint of {other} in {outcome.name}" for other in others]
        if mistake is None or not named_alone:
            found[module] += shared
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
        if isinstance(node, ast.ImportFrom) and (node.level or node.module in ("grader.contract", "grader")):
            continue  # the contract and the course's own modules: trusted, never in a submission
        if isinstance(node, (ast.Import, ast.ImportFrom)) and not (
            isinstance(node, ast.ImportFrom) and node.module == "__future__"
        ):
            kept.append("\n".join(lines[node.lineno - 1 : node.end_lineno]))
    return "\n".join(kept)


def _signature_rows(course: Course, module: str, names: tuple[str, ...]) -> list[VerifyRow]:
    try:
        stub, solution = course.module("exercises", module), course.module("solutions", module)
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
