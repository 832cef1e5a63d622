"""The first course's capstone states what its training runs show as claims the build checks: a
copy of the course builds with every claim on the capstone page (en, zh) with the per-seed values
of the runs, and the same copy with one claim made false does not build, the error at the claim.

The build is the one a user types (`python cli.py build --root ...`). The copy starts from the
checkout's cache when there is one (then only the changed parts run); on a cold cache it trains the
capstone's models, a minute or two."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from ruamel.yaml import YAML

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
# templates/ too: the course's templates are part of every output's key (coursegen/outputs/keys.py),
# so a copy without them would rebuild every page, deck and notebook from scratch (a minute of work)
COURSE_FOLDERS = ("content", "exercises", "solutions", "grader/checks", "templates")
LESSON = "content/lessons/capstone-tiny-lm.yaml"


@pytest.fixture(scope="module")
def course(tmp_path_factory) -> Path:
    dest = tmp_path_factory.mktemp("first") / "course"
    for folder in COURSE_FOLDERS:
        shutil.copytree(REPO / folder, dest / folder, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    if (REPO / ".coursegen-cache").is_dir():
        shutil.copytree(REPO / ".coursegen-cache", dest / ".coursegen-cache")
    return dest


def build(root: Path, out: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(REPO / "cli.py"), "build", "--quiet", "--root", str(root), "-o", str(out)],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=1800,
    )


def lesson_data(root: Path) -> dict:
    return YAML(typ="safe").load((root / LESSON).read_text(encoding="utf-8"))


def experiment_results(root: Path) -> dict:
    """The cached results whose arms are those the lesson declares (read from the cache's files)."""
    wanted = [arm["id"] for arm in lesson_data(root)["experiments"][0]["params"]["arms"]]
    stored = [json.loads(p.read_text()) for p in (root / ".coursegen-cache" / "experiments").glob("*.json")]
    found = [entry.get("value") or {} for entry in stored]  # coursegen/cache.py: {format, kind, key, value}
    matching = [r for r in found if sorted(r.get("arms", {})) == sorted(wanted)]
    assert matching, "the build cached the capstone's runs"
    return matching[0]


@pytest.fixture(scope="module")
def site(course, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site") / "site"
    done = build(course, out)
    assert done.returncode == 0, done.stderr
    return out


def test_the_capstone_page_shows_every_claim_with_its_per_seed_evidence(course, site):
    claims = lesson_data(course)["claims"]
    results = experiment_results(course)
    assert len(claims) >= 10
    for lang in ("en", "zh"):
        page = (site / lang / "capstone-tiny-lm.html").read_text(encoding="utf-8")
        for claim in claims:
            start = page.index(f'id="claim-{claim["id"]}"')
            shown = page[start : page.index("</li>", start)]
            assert ("✓ holds" if lang == "en" else "✓ 成立") in shown
            for row in re.findall(r"<tr><th scope=\"row\">.*?</tr>", shown):
                assert len(re.findall(r"<td>", row)) >= 3  # per-seed values, mean ± sd, min-max
        none = page[page.index('id="claim-none-far-above"') :]
        none = none[: none.index("</li>")]
        finals = [f"{run['final']:.3f}" for run in results["arms"]["none"]["runs"]]
        assert re.findall(r"<td>([^<±–]*)</td>", none)[: len(finals)] == finals


def test_making_a_capstone_claim_false_fails_the_build_at_the_claim(course, site, tmp_path):
    flipped = tmp_path / "flipped"
    shutil.copytree(course, flipped)
    lesson = flipped / LESSON
    text = lesson.read_text(encoding="utf-8")
    old = "params: {arms: [none], low: 1.4, high: 1.8}"
    assert text.count(old) == 1
    lesson.write_text(text.replace(old, "params: {arms: [none], low: 1.4, high: 1.45}"), encoding="utf-8")
    finals = [run["final"] for run in experiment_results(course)["arms"]["none"]["runs"]]
    assert max(finals) > 1.45  # the runs make the changed claim false
    lines = lesson.read_text(encoding="utf-8").splitlines()
    line = next(n for n, t in enumerate(lines, 1) if t.strip() == "- id: none-far-above")
    column = lines[line - 1].index("id: none-far-above") + 1
    done = build(flipped, tmp_path / "out")
    assert done.returncode == 1
    assert f"{LESSON}:{line}:{column}: claim 'none-far-above' does not hold" in done.stderr
    assert not (tmp_path / "out").exists()
