"""What a class's submissions share beyond what independent students share (`coursegen similarity`).

    analyse(runs, submissions, course, assignment=None) -> Analysis

reads, after grading, every student's latest submissions (`submissions`: the batch folder the
gradebook's paths are relative to; read as the grader reads them, never run; a file changed since
it was graded is left out) and the gradebook's runs, and scores every pair of students on two
independent kinds of evidence:

- structure (structure.py): the share of their normalised programs (normalise.py: renaming,
  layout, comments, docstrings, annotations, dead code, loops written as comprehensions and the
  order of definitions undone; a notebook's cells are one program, like a .py file) that is the
  same token sequence, after removing what the course itself wrote (the generated stubs and the
  catalogued mistakes) and what most of the class writes anyway;
- behaviour (behaviour.py): their outcomes on the same secret inputs, check by check, and the wrong
  outputs, exceptions and edge-case quirks they share that no catalogued mistake explains.

The flag rule (thresholds named below). A pair is flagged when all of these hold:

1. its structural score is beyond what the class's independent pairs show: at least the class's
   median plus Z_ROBUST robust standard deviations (1.4826 x the median absolute deviation, at
   least MAD_FLOOR), and at least SCORE_FLOOR in any case;
2. it shares at least MIN_SHARED fingerprints (a few shared lines are no evidence);
3. its behaviour agrees: on at least AGREEMENT of the checks both were graded on, the same
   outcome (the same wrong output where wrong). Identical outputs that a catalogued mistake
   explains, or that every correct student gives, agree but add nothing; shared uncatalogued wrong
   outputs are listed as the evidence that goes beyond.

Students who write independently and share only a (catalogued or uncatalogued) mistake, or only the
stub, fail rule 1: their code differs once the stub is removed. Every flag carries one sentence
saying why (`Pair.why`), in English and Chinese. Flagged pairs that share a student form clusters.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from grader.course import Course

Z_ROBUST = 5.0
MAD_FLOOR = 0.02
SCORE_FLOOR = 0.5
MIN_SHARED = 10
AGREEMENT = 0.8


@dataclass
class Program:
    student: str
    files: list[str]
    text: str = ""  # normalised
    note: str = ""  # why some or all of the student's code is not compared


@dataclass
class Pair:
    students: tuple[str, str]
    score: float
    shared: int
    behaviour: dict
    flagged: bool = False
    why: dict[str, str] = field(default_factory=dict)
    slices: tuple[list, list] = ([], [])


@dataclass
class Analysis:
    programs: dict[str, Program]
    pairs: list[Pair]
    threshold: float
    median: float
    mad: float
    clusters: list[list[str]]

    @property
    def flagged(self) -> list[Pair]:
        return [p for p in self.pairs if p.flagged]

    def to_json(self) -> dict:
        return {
            "students": len(self.programs),
            "calibration": {
                "median": round(self.median, 4),
                "mad": round(self.mad, 4),
                "threshold": round(self.threshold, 4),
                "rule": {
                    "z_robust": Z_ROBUST,
                    "mad_floor": MAD_FLOOR,
                    "score_floor": SCORE_FLOOR,
                    "min_shared_fingerprints": MIN_SHARED,
                    "behaviour_agreement": AGREEMENT,
                },
            },
            "pairs": [
                {
                    "students": list(p.students),
                    "score": round(p.score, 4),
                    "flagged": p.flagged,
                    "evidence": {
                        "structure": {"shared_fingerprints": p.shared},
                        "behaviour": p.behaviour,
                        **({"why": p.why} if p.flagged else {}),
                    },
                }
                for p in self.pairs
            ],
            "clusters": self.clusters,
            "notes": {s: p.note for s, p in sorted(self.programs.items()) if p.note},
        }


def analyse(runs: list[dict], submissions: Path, course: Course, assignment: str | None = None) -> Analysis:
    """Score and flag every pair of the class (the module's docstring)."""
    import numpy as np

    from . import behaviour, structure

    by_student = behaviour.latest_runs(runs, assignment)
    names = frozenset(e.name for e in course.registry.exercises)
    programs = {s: read_program(s, rs, submissions, course, names) for s, rs in by_student.items()}
    students = sorted(programs)
    own = structure.boilerplate_hashes(course_code(course, names))
    first = {s: structure.fingerprint(programs[s].text, np.array(sorted(own))) for s in students}
    skip = np.array(sorted(own | structure.class_common(first)))
    prints = {s: structure.fingerprint(programs[s].text, skip) for s in students}
    scored = structure.scores(prints, students)
    acts = behaviour.read_behaviour(by_student)
    values = [score for score, _ in scored.values()]
    median = statistics.median(values) if values else 0.0
    mad = statistics.median([abs(v - median) for v in values]) if values else 0.0
    threshold = max(SCORE_FLOOR, median + Z_ROBUST * 1.4826 * max(mad, MAD_FLOOR))
    pairs = []
    for (a, b), (score, shared) in scored.items():
        pair = Pair((a, b), score, shared, behaviour.compare(acts, a, b))
        pair.flagged = _flagged(pair, threshold)
        if pair.flagged:
            pair.why = why(pair, median, threshold, len(students))
            pair.slices = structure.shared_slices(prints[a], prints[b])
        pairs.append(pair)
    pairs.sort(key=lambda p: (-p.flagged, -round(p.score, 6), p.students))
    return Analysis(programs, pairs, threshold, median, mad, clusters([p.students for p in pairs if p.flagged]))


def _flagged(pair: Pair, threshold: float) -> bool:
    seen = pair.behaviour
    return (
        pair.score >= threshold
        and pair.shared >= MIN_SHARED
        and seen["compared"] > 0
        and seen["same"] >= AGREEMENT * seen["compared"]
    )


def why(pair: Pair, median: float, threshold: float, students: int) -> dict[str, str]:
    """One sentence per language an instructor can check on the evidence page."""
    a, b = pair.students
    seen = pair.behaviour
    shared = seen["shared"]
    rare = min((s["students"] for s in shared), default=0)
    en = (
        f"{a} and {b} share {pair.score:.0%} of their code beyond the stub once renaming, layout, comments, "
        f"order and dead code are undone (class median {median:.0%}, flagged from {threshold:.0%}), and give "
        f"the same result on {seen['same']} of {seen['compared']} checks"
    )
    zh = (
        f"{a} 与 {b} 在消除改名、排版、注释、顺序和死代码之后，桩代码以外的代码有 {pair.score:.0%} 相同"
        f"（全班中位数 {median:.0%}，从 {threshold:.0%} 起标记），并且在 {seen['compared']} 个检查中有 "
        f"{seen['same']} 个结果相同"
    )
    if shared:
        en += (
            f", including {len(shared)} wrong output(s) no catalogued mistake explains "
            f"(the rarest given by {rare} of {students} students)."
        )
        zh += f"，其中包括 {len(shared)} 个没有任何已编目错误能解释的错误输出（最少见的一个全班 {students} 人中只有 {rare} 人给出）。"
    else:
        en += "."
        zh += "。"
    return {"en": en, "zh": zh}


def clusters(flagged: list[tuple[str, str]]) -> list[list[str]]:
    """Students linked by flagged pairs, each cluster sorted, largest first."""
    parent: dict[str, str] = {}

    def root(s: str) -> str:
        while parent.setdefault(s, s) != s:
            s = parent[s]
        return s

    for a, b in flagged:
        ra, rb = root(a), root(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    groups: dict[str, list[str]] = {}
    for s in sorted(parent):
        groups.setdefault(root(s), []).append(s)
    return sorted(groups.values(), key=lambda g: (-len(g), g))


def read_program(student: str, runs: list[dict], submissions: Path, course: Course, names: frozenset[str]) -> Program:
    """One student's submissions as one normalised program (files that parse, in name order)."""
    from grader.reading.submission import load_submission

    from .normalise import normalise

    program = Program(student, sorted(r["submission"] for r in runs))
    codes, notes = [], []
    for run in sorted(runs, key=lambda r: r["submission"]):
        path = Path(run["submission"])
        relative = not path.is_absolute()
        path = submissions / path if relative else path
        if not path.is_file():
            notes.append(f"{run['submission']}: not found")
            continue
        loaded = load_submission(path, course, root=submissions if relative else None)
        if loaded.fatal or not loaded.code:
            notes.append(f"{run['submission']}: not read ({loaded.fatal or 'no code'})")
            continue
        if loaded.sha256 != run["sha256"]:
            notes.append(f"{run['submission']}: changed since it was graded")
            continue
        try:
            normalise(loaded.code, names)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            notes.append(f"{run['submission']}: does not parse")
            continue
        codes.append(loaded.code)
    if codes:
        program.text = normalise("\n".join(codes), names)
    program.note = "; ".join(notes)
    return program


def course_code(course: Course, names: frozenset[str]) -> list[str]:
    """The course's own code students start from or are expected to write: the stubs
    (exercises/<module>.py) and the catalogued mistakes (solutions/mistakes/<module>.py), normalised."""
    from .normalise import normalise

    texts = []
    for module in course.registry.modules:
        for path in (
            course.root / "exercises" / f"{module}.py",
            course.root / "solutions" / "mistakes" / f"{module}.py",
        ):
            if path.is_file():
                try:
                    texts.append(normalise(path.read_text(encoding="utf-8"), names))
                except (SyntaxError, ValueError):
                    continue
    return texts
