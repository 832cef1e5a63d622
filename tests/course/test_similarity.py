"""`coursegen similarity` on a class built here (tests/course/similarity_class.py): independent
correct solutions in different styles, independent students sharing a catalogued and two
uncatalogued mistakes, two students who only share the stub, and copies made with every
obfuscation (verbatim, renamed, reformatted, reordered, loop -> comprehension, dead code added,
module -> notebook, all at once), of correct and of wrong solutions.

The class is graded by the real command line through the sandbox, then `coursegen similarity`
runs as an instructor runs it. The flagged pairs are compared with the ground truth (precision
and recall printed beside copydetect's own defaults on the same files, the field tool)."""

from __future__ import annotations

import itertools
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.course.similarity_class import COPIED, SHARE_A_MISTAKE, SHARE_THE_STUB, precision_recall, write_class

ROOT = Path(__file__).resolve().parents[2]


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "HOME": str(cwd)}
    return subprocess.run(
        [sys.executable, str(ROOT / "cli.py"), *args], cwd=cwd, capture_output=True, text=True, env=env, timeout=900
    )


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> Path:
    work = tmp_path_factory.mktemp("similarity-class")
    write_class(work / "submissions")
    done = _run("grade", "submissions", "--gradebook", "gb.sqlite", "--seed", "11", "--root", str(ROOT), cwd=work)
    assert done.returncode == 0, done.stderr
    done = _run("similarity", "submissions", "--gradebook", "gb.sqlite", "-o", "sim", "--root", str(ROOT), cwd=work)
    assert done.returncode == 0, done.stderr
    return work


def _flagged(work: Path, folder: str = "sim") -> set[tuple[str, str]]:
    data = json.loads((work / folder / "similarity.json").read_text(encoding="utf-8"))
    return {tuple(sorted(p["students"])) for p in data["pairs"] if p["flagged"]}  # type: ignore[misc]


@pytest.mark.slow
def test_every_pair_of_the_class_is_scored_with_students_named_as_graded(graded):
    data = json.loads((graded / "sim" / "similarity.json").read_text(encoding="utf-8"))
    students = sorted(p.name for p in (graded / "submissions").iterdir())
    assert data["students"] == len(students) == 25
    pairs = {tuple(sorted(p["students"])) for p in data["pairs"]}
    assert pairs == set(itertools.combinations(students, 2))
    assert all(0.0 <= p["score"] <= 1.0 and isinstance(p["flagged"], bool) for p in data["pairs"])


@pytest.mark.slow
def test_flags_are_exactly_the_copies_beside_the_field_tool(graded):
    ours = precision_recall(_flagged(graded))
    field = precision_recall(_copydetect_defaults(graded / "submissions"))
    print(f"\ncoursegen similarity: precision {ours[0]:.2f} recall {ours[1]:.2f} ({len(COPIED)} copied pairs)")
    print(f"copydetect (its defaults, stub as boilerplate): precision {field[0]:.2f} recall {field[1]:.2f}")
    assert ours == (1.0, 1.0)
    assert field[0] < ours[0]  # the field tool accuses students who share a mistake or the stub


@pytest.mark.slow
def test_students_who_only_share_a_mistake_or_the_stub_are_never_flagged(graded):
    flagged = _flagged(graded)
    innocent = [tuple(sorted(p)) for group in SHARE_A_MISTAKE for p in itertools.combinations(group, 2)]
    innocent.append(tuple(sorted(SHARE_THE_STUB)))
    assert innocent and not flagged & set(innocent)
    copied_groups = [s for pair in COPIED for s in pair]
    assert all(s in copied_groups for pair in flagged for s in pair)


@pytest.mark.slow
def test_every_flag_says_why_in_one_sentence_per_language(graded):
    data = json.loads((graded / "sim" / "similarity.json").read_text(encoding="utf-8"))
    flagged = [p for p in data["pairs"] if p["flagged"]]
    assert flagged
    for pair in flagged:
        why = pair["evidence"]["why"]
        a, b = pair["students"]
        assert why["en"].count(". ") == 0 and why["en"].endswith(".") and a in why["en"] and b in why["en"]
        assert why["zh"].endswith("。") and why["zh"].count("。") == 1
        assert pair["evidence"]["behaviour"]["same"] >= 0.8 * pair["evidence"]["behaviour"]["compared"] > 0
    wrong_copy = next(p for p in flagged if sorted(p["students"]) == ["cp-dead-code", "unc-0"])
    assert wrong_copy["evidence"]["behaviour"]["shared"]  # the uncatalogued wrong outputs they share
    assert "wrong output" in wrong_copy["evidence"]["why"]["en"]


@pytest.mark.slow
def test_the_evidence_page_shows_each_flagged_pair_side_by_side_in_both_languages(graded):
    flagged = len(_flagged(graded))
    for page in ("index.html", "zh/index.html"):
        html = (graded / "sim" / page).read_text(encoding="utf-8")
        sections = re.findall(r'<section class="pair" id="pair-(\d+)">(.*?)</section>', html, re.S)
        assert len(sections) == flagged
        for _, body in sections:
            assert '<table class="code">' in body and "<mark>" in body
        assert "<script" not in html
    notebook_pair = (graded / "sim" / "index.html").read_text(encoding="utf-8")
    assert "cp-notebook · unc-1" in notebook_pair  # the notebook copy, compared as one program


@pytest.mark.slow
def test_the_output_is_the_same_bytes_on_a_second_run(graded):
    done = _run("similarity", "submissions", "--gradebook", "gb.sqlite", "-o", "again", "--root", str(ROOT), cwd=graded)
    assert done.returncode == 0, done.stderr
    for name in ("similarity.json", "index.html", "zh/index.html"):
        assert (graded / "again" / name).read_bytes() == (graded / "sim" / name).read_bytes()


def _copydetect_defaults(submissions: Path) -> set[tuple[str, str]]:
    """The pairs copydetect's own report shows (its defaults: noise = guarantee = 25, display
    threshold 0.33), every student's files, the generated stub given as boilerplate."""
    from copydetect import CopyDetector

    detector = CopyDetector(
        test_dirs=[str(submissions)],
        boilerplate_dirs=[str(ROOT / "exercises")],
        extensions=["py", "ipynb"],
        autoopen=False,
        silent=True,
    )
    detector.run()
    owners = [Path(f).parent.name for f in detector.test_files]
    found = set()
    for i, j in itertools.combinations(range(len(owners)), 2):
        if owners[i] != owners[j] and max(detector.similarity_matrix[i, j]) > detector.conf.display_t:
            found.add(tuple(sorted((owners[i], owners[j]))))
    return found  # type: ignore[return-value]


@pytest.mark.slow
def test_the_class_report_lists_the_flags_and_the_proposals_with_links_that_resolve(graded):
    done = _run(
        "mistakes", "propose", "--gradebook", "gb.sqlite", "-o", "props", "--submissions", "submissions",
        "--root", str(ROOT), cwd=graded,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    done = _run(
        "report", "--gradebook", "gb.sqlite", "-o", "report", "--similarity", "sim", "--proposals", "props",
        "--root", str(ROOT), cwd=graded,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    flagged = _flagged(graded)
    for page, title in (("index.html", "Shared code"), ("zh/index.html", "相同的代码")):
        path = graded / "report" / page
        html = path.read_text(encoding="utf-8")
        section = html[html.index('<section id="integrity"') : html.index('<section id="exercises"')]
        assert title in section and section.count("<tr><td>") == len(flagged)
        links = re.findall(r'href="([^"]+)"', section) + re.findall(
            r'href="([^"]+\.py)"', html[html.index('id="proposal-table"') :]
        )
        assert any(link.endswith(".py") for link in links)
        for link in links:
            target, _, anchor = link.partition("#")
            file = (path.parent / target).resolve()
            assert file.is_file(), link
            if anchor:
                assert f'id="{anchor}"' in file.read_text(encoding="utf-8")
