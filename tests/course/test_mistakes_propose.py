"""`coursegen mistakes propose`: a graded class with two uncatalogued mistakes shared by three
students each, one catalogued mistake (two students) and correct students gives exactly the two
groups; the drafts are editable mistake files, and a completed draft is caught by the checks
with its hint like any catalogued mistake.

The class is graded by the real command line (`coursegen grade` over a folder per student),
through the sandbox; the wrong solutions are written here from the contract."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from tests.nonempty import nonempty
from tests.student_code import MERGE_PAIR

ROOT = Path(__file__).resolve().parents[2]

ENCODE_RIGHT = """
def encode(tokens, vocab, unk_token="<UNK>"):
    out = []
    for token in tokens:
        if token in vocab:
            out.append(vocab[token])
        elif unk_token in vocab:
            out.append(vocab[unk_token])
        else:
            raise ValueError(f"unknown token {token!r}")
    return out
"""

PAD_RIGHT = """
def pad_batch(sequences, pad_id=0):
    if not sequences:
        raise ValueError("no sequences")
    width = max(len(s) for s in sequences)
    ids = torch.full((len(sequences), width), pad_id, dtype=torch.long)
    mask = torch.zeros((len(sequences), width), dtype=torch.bool)
    for row, seq in enumerate(sequences):
        ids[row, : len(seq)] = torch.tensor(seq, dtype=torch.long)
        mask[row, : len(seq)] = True
    return ids, mask
"""

MERGE_RIGHT = "\n" + MERGE_PAIR

# uncatalogued mistake 1, three ways of writing it: unknown tokens get a NEW id, len(vocab)
ENCODE_NEW_ID = [
    """
def encode(tokens, vocab, unk_token="<UNK>"):
    return [vocab[t] if t in vocab else len(vocab) for t in tokens]
""",
    """
def encode(tokens, vocab, unk_token="<UNK>"):
    size = len(vocab)
    result = []
    for token in tokens:
        result.append(vocab.get(token, size))
    return result
""",
    """
def encode(tokens, vocab, unk_token="<UNK>"):
    fresh = max(vocab.values()) + 1 if vocab else 0   # the next free id (ids are 0..V-1 here)
    return [vocab.get(t, fresh) for t in tokens]
""",
]

# uncatalogued mistake 2, three ways: the pairs are read two by two from the start
MERGE_TWO_BY_TWO = [
    """
def merge_pair(ids, pair, new_id):
    out = []
    for k in range(0, len(ids) - 1, 2):
        if (ids[k], ids[k + 1]) == tuple(pair):
            out.append(new_id)
        else:
            out.extend(ids[k:k + 2])
    if len(ids) % 2:
        out.append(ids[-1])
    return out
""",
    """
def merge_pair(ids, pair, new_id):
    chunks = [ids[k:k + 2] for k in range(0, len(ids), 2)]
    out = []
    for chunk in chunks:
        out += [new_id] if tuple(chunk) == tuple(pair) else list(chunk)
    return out
""",
    """
def merge_pair(ids, pair, new_id):
    result = []
    i = 0
    while i < len(ids):
        two = tuple(ids[i:i + 2])
        if two == (pair[0], pair[1]):
            result.append(new_id)
        else:
            result.extend(two)
        i += 2
    return result
""",
]

# catalogued: merge-first-only
MERGE_FIRST_ONLY = [
    """
def merge_pair(ids, pair, new_id):
    for k in range(len(ids) - 1):
        if ids[k] == pair[0] and ids[k + 1] == pair[1]:
            return list(ids[:k]) + [new_id] + list(ids[k + 2:])
    return list(ids)
""",
    """
def merge_pair(ids, pair, new_id):
    out = list(ids)
    for k in range(len(out) - 1):
        if (out[k], out[k + 1]) == tuple(pair):
            out[k:k + 2] = [new_id]
            break
    return out
""",
]


def _tokens_file(encode: str = ENCODE_RIGHT, merge: str = MERGE_RIGHT) -> str:
    return "import torch\n" + encode + PAD_RIGHT + merge


CLASS = {
    **{f"new-id-{i}": _tokens_file(encode=code) for i, code in enumerate(ENCODE_NEW_ID)},
    **{f"two-by-two-{i}": _tokens_file(merge=code) for i, code in enumerate(MERGE_TWO_BY_TWO)},
    **{f"first-only-{i}": _tokens_file(merge=code) for i, code in enumerate(MERGE_FIRST_ONLY)},
    "correct-0": _tokens_file(),
    "correct-1": _tokens_file(),
}


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "HOME": str(cwd)}
    return subprocess.run(
        [sys.executable, str(ROOT / "cli.py"), *args], cwd=cwd, capture_output=True, text=True, env=env, timeout=900
    )


@pytest.fixture(scope="module")
def graded_class(tmp_path_factory) -> Path:
    work = tmp_path_factory.mktemp("class")
    for student, code in CLASS.items():
        (work / "submissions" / student).mkdir(parents=True)
        (work / "submissions" / student / "tokens.py").write_text(code, encoding="utf-8")
    done = _run(
        "grade", "submissions", "--gradebook", "gradebook.sqlite", "--seed", "2024", "--root", str(ROOT), cwd=work
    )
    assert done.returncode == 0, done.stderr
    return work


@pytest.fixture(scope="module")
def proposed(graded_class) -> Path:
    """The class's proposals/ folder, written once by `coursegen mistakes propose` (each test that
    reads it asks for it, so one run alone, e.g. the slow lane's, still has it)."""
    done = _run(
        "mistakes",
        "propose",
        "--gradebook",
        "gradebook.sqlite",
        "-o",
        "proposals",
        "--submissions",
        "submissions",
        "--root",
        str(ROOT),
        cwd=graded_class,
    )
    assert done.returncode == 0, done.stderr
    return graded_class


def test_propose_returns_exactly_the_two_uncatalogued_groups(proposed):
    proposals = json.loads((proposed / "proposals" / "proposals.json").read_text(encoding="utf-8"))
    groups = sorted((p["exercise"], tuple(p["students"])) for p in proposals)
    assert groups == [
        ("encode", ("new-id-0", "new-id-1", "new-id-2")),
        ("merge_pair", ("two-by-two-0", "two-by-two-1", "two-by-two-2")),
    ]
    for proposal in nonempty(proposals):
        assert proposal["failing_checks"] and all(name.startswith("test_") for name in proposal["failing_checks"])
        draft = (proposed / "proposals" / proposal["draft"]).read_text(encoding="utf-8")
        assert f'@mistake(target="{proposal["exercise"]}"' in draft
        assert '"en": ""' in draft and '"zh": ""' in draft
        assert f"def {proposal['exercise']}(" in draft  # one member's code
        for student in proposal["students"]:
            assert student in draft
        for check in proposal["failing_checks"]:
            assert check in draft


def test_gradebook_keeps_a_bounded_fingerprint_for_every_failing_check(graded_class):
    from grader.reporting.gradebook import Gradebook

    with Gradebook(graded_class / "gradebook.sqlite", create=False) as book:
        runs = book.runs()
    failing = [t for run in runs for t in run["tests"] if t["status"] != "passed"]
    assert failing and all(t["fingerprint"] and len(t["fingerprint"]) <= 1200 for t in failing)
    assert all(t["fingerprint"] == "" for run in nonempty(runs) for t in run["tests"] if t["status"] == "passed")


def test_student_reports_never_carry_the_fingerprint(graded_class):
    from grader.reporting import reports
    from grader.reporting.gradebook import Gradebook

    with Gradebook(graded_class / "gradebook.sqlite", create=False) as book:
        results = book.latest_results()
    assert "fingerprint" not in reports.render(results, "json")
    assert "fingerprint" not in reports.render(results, "gradescope")


def test_propose_refuses_to_replace_a_folder_it_did_not_write(graded_class):
    (graded_class / "mine").mkdir()
    (graded_class / "mine" / "notes.txt").write_text("keep me", encoding="utf-8")
    done = _run(
        "mistakes", "propose", "--gradebook", "gradebook.sqlite", "-o", "mine", "--root", str(ROOT), cwd=graded_class
    )
    assert done.returncode == 2 and "not replacing" in done.stderr
    assert (graded_class / "mine" / "notes.txt").read_text(encoding="utf-8") == "keep me"


@pytest.mark.slow  # seconds of work: the slow lane (.ci/run runs it)
def test_a_completed_draft_moved_into_the_catalogue_is_proven_by_verify(proposed, tmp_path):
    """The instructor writes the hints of the merge_pair draft and moves it into
    solutions/mistakes/tokens.py (of a copy of the course): `coursegen verify` proves that the
    checks catch it and show its hint, and that no other mistake's hint fires for it."""
    import shutil

    proposals = json.loads((proposed / "proposals" / "proposals.json").read_text(encoding="utf-8"))
    merge = next(p for p in proposals if p["exercise"] == "merge_pair")
    draft = (proposed / "proposals" / merge["draft"]).read_text(encoding="utf-8")
    definition = draft[draft.index("@mistake(") :]
    definition = definition.replace(
        '"en": ""', '"en": "Pairs were read two by two from the start: scan every position."'
    )
    definition = definition.replace('"zh": ""', '"zh": "你从头开始两个两个地读 token 对：应检查每一个位置。"')
    course = tmp_path / "course"
    for part in ("content", "exercises", "solutions", "grader"):
        shutil.copytree(ROOT / part, course / part, ignore=shutil.ignore_patterns("__pycache__"))
    catalogue = course / "solutions" / "mistakes" / "tokens.py"
    catalogue.write_text(catalogue.read_text(encoding="utf-8") + "\n\n" + definition, encoding="utf-8")
    done = _run("verify", "--module", "tokens", "--skip-quizzes", "--root", str(course), cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    row = next(line for line in done.stdout.splitlines() if "mistake merge-pair-proposed-1" in line)
    assert " ok " in row and "with its hint" in row
    assert any(" hints " in line and " ok " in line for line in done.stdout.splitlines())


def test_class_report_shows_the_proposals_beside_the_misconceptions(graded_class):
    done = _run("report", "--gradebook", "gradebook.sqlite", "-o", "report", "--root", str(ROOT), cwd=graded_class)
    assert done.returncode == 0, done.stderr
    for page, title in (("index.html", "Proposed new mistakes"), ("zh/index.html", "建议新增的典型错误")):
        html = (graded_class / "report" / page).read_text(encoding="utf-8")
        ranked, proposed = html.index('id="misconception-table"'), html.index('id="proposal-table"')
        assert ranked < proposed < html.index('id="exercises"') and title in html
        table = html[proposed : html.index("</table>", proposed)]
        assert table.count("<tr>") == 3  # the header and the two groups
        assert "two-by-two-0" in table and "new-id-2" in table and "first-only" not in table
