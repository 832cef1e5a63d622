"""Executable claims about a lesson's experiment, on a course written by `coursegen new` plus one
experiment (a biased coin flipped per seed, plain Python) and one claim about it: the build checks
the claim on the run's results, fails at the claim (file:line:column) when it does not hold, shows
it with its per-seed evidence in both languages, and reruns the experiment only when what decides
it changes. The per-seed values the page must show are computed here, apart from the plugin."""

from __future__ import annotations

import json
import random
import re
import statistics
import subprocess
import sys
from pathlib import Path

import pytest

from coursegen.newcourse import write_new_course

REPO = Path(__file__).resolve().parents[2]
SEEDS = (0, 1, 2, 3)

PLUGIN = """
import os
import random

from coursegen.plugin import Evidence, Measure, claim, experiment


@experiment
def coin_runs(*, seeds: list = (0,), flips: int = 200, bias: float = 0.7) -> dict:
    if not 0 <= bias <= 1:
        raise ValueError(f"bias {bias} is not a probability")
    log = os.environ.get("CLAIMS_TEST_RUN_LOG")
    if log:
        with open(log, "a") as f:
            f.write("ran\\n")
    shares = []
    for s in seeds:
        rng = random.Random(s)
        shares.append(sum(rng.random() < bias for _ in range(flips)) / flips)
    return {"seeds": list(seeds), "heads": shares}


@claim(experiment="coin_runs")
def heads_above(results, *, share: float = 0.5) -> Evidence:
    values = tuple(results["heads"])
    above = sum(v > share for v in values)
    return Evidence(above == len(values), f"{above}/{len(values)} seeds above {share}", tuple(results["seeds"]),
                    (Measure({"en": "share of heads", "zh": "正面比例"}, values),))
"""

CLAIMS = """experiments:
  - id: coins
    run: coin_runs
    params: {seeds: [0, 1, 2, 3], flips: 200, bias: 0.7}
claims:
  - id: mostly-heads
    check: heads_above
    params: {share: 0.5}
    text: {en: "A coin biased to 0.7 shows heads more often than not, in every seed.", zh: "偏向 0.7 的硬币在每个种子上正面朝上的次数都多于反面。"}
"""


def _shares() -> list[float]:
    shares = []
    for seed in SEEDS:
        draws = random.Random(seed)
        shares.append(sum(1 for _ in range(200) if draws.random() < 0.7) / 200)
    return shares


@pytest.fixture
def course(tmp_path: Path) -> Path:
    folder = tmp_path / "coins"
    write_new_course(folder)
    (folder / "content/plugins/runs.py").write_text(PLUGIN, encoding="utf-8")
    lesson = folder / "content/lessons/dot-product.yaml"
    lesson.write_text(lesson.read_text(encoding="utf-8").rstrip("\n") + "\n" + CLAIMS, encoding="utf-8")
    return folder


def build(course: Path, out: Path, log: Path | None = None, probe_torch: bool = False) -> subprocess.CompletedProcess:
    """`coursegen build` as a user types it, in a fresh process (optionally reporting whether torch got imported)."""
    env = {"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin", "HOME": str(course.parent)}
    if log is not None:
        env["CLAIMS_TEST_RUN_LOG"] = str(log)
    code = (
        "import sys; from coursegen.cli import main\n"
        "try:\n    main(['build', '--quiet', '--root', sys.argv[1], '-o', sys.argv[2]])\n"
        "finally:\n    print('TORCH', 'torch' in sys.modules)\n"
        if probe_torch
        else "import sys; from coursegen.cli import main; main(['build', '--quiet', '--root', sys.argv[1], '-o', sys.argv[2]])"
    )
    return subprocess.run(
        [sys.executable, "-c", code, str(course), str(out)], capture_output=True, text=True, env=env, timeout=600
    )


@pytest.mark.slow  # seconds of work: the slow lane (.ci/run runs it)
def test_the_page_shows_every_claim_with_its_per_seed_evidence_in_both_languages(course, tmp_path):
    done = build(course, tmp_path / "site")
    assert done.returncode == 0, done.stderr
    assert "experiments: 1 run, 0 cached, 1 claim(s) hold" in done.stdout
    shares = _shares()
    for lang, text, label in (
        ("en", "A coin biased to 0.7 shows heads more often than not", "share of heads"),
        ("zh", "偏向 0.7 的硬币在每个种子上正面朝上的次数都多于反面", "正面比例"),
    ):
        page = (tmp_path / "site" / lang / "dot-product.html").read_text(encoding="utf-8")
        start = page.index('id="claim-mostly-heads"')
        claim = page[start : page.index("</li>", start)]
        assert text in claim and "4/4 seeds above 0.5" in claim
        cells = re.findall(r"<td>([^<]*)</td>", claim)
        mean = statistics.fmean(shares)
        sd = statistics.stdev(shares)
        assert cells == [f"{v:.3f}" for v in shares] + [
            f"{mean:.3f} ± {sd:.3f}",
            f"{min(shares):.3f}–{max(shares):.3f}",
        ]
        assert re.findall(r'<th scope="col">[^<]*</th>', claim)[1:5] == [
            f'<th scope="col">{"seed" if lang == "en" else "种子"} {s}</th>' for s in SEEDS
        ]
        assert f'<th scope="row">{label}</th>' in claim


def test_the_build_fails_at_the_claim_when_it_does_not_hold_and_writes_nothing(course, tmp_path):
    lesson = course / "content/lessons/dot-product.yaml"
    lesson.write_text(lesson.read_text(encoding="utf-8").replace("{share: 0.5}", "{share: 0.9}"), encoding="utf-8")
    assert max(_shares()) < 0.9  # so the claim is false on these runs
    lines = lesson.read_text(encoding="utf-8").splitlines()
    line = next(n for n, text in enumerate(lines, 1) if text.strip() == "- id: mostly-heads")
    column = lines[line - 1].index("id: mostly-heads") + 1
    done = build(course, tmp_path / "site")
    assert done.returncode == 1
    assert f"content/lessons/dot-product.yaml:{line}:{column}: claim 'mostly-heads' does not hold" in done.stderr
    assert "0/4 seeds above 0.9" in done.stderr
    assert f"seeds 0, 1, 2, 3: share of heads: {', '.join(f'{v:.3f}' for v in _shares())}" in done.stderr
    assert not (tmp_path / "site").exists()


@pytest.mark.slow  # seconds of work: the slow lane (.ci/run runs it)
def test_a_no_change_rebuild_runs_no_experiment_and_imports_no_torch_and_a_change_reruns_it(course, tmp_path):
    log = tmp_path / "runs.log"
    assert build(course, tmp_path / "site", log).returncode == 0
    again = build(course, tmp_path / "site", log, probe_torch=True)
    assert again.returncode == 0, again.stderr
    assert "experiments: 0 run, 1 cached" in again.stdout and "TORCH False" in again.stdout
    assert log.read_text().count("ran") == 1
    lesson = course / "content/lessons/dot-product.yaml"
    lesson.write_text(lesson.read_text(encoding="utf-8").replace("flips: 200", "flips: 300"), encoding="utf-8")
    assert build(course, tmp_path / "site", log).returncode == 0
    assert log.read_text().count("ran") == 2  # the params decide the results
    plugin = course / "content/plugins/runs.py"
    plugin.write_text(plugin.read_text(encoding="utf-8").replace("bias: float = 0.7", "bias: float = 0.70"))
    assert build(course, tmp_path / "site", log).returncode == 0
    assert log.read_text().count("ran") == 3  # so does the plugin module's source


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ("check: heads_above", "check: heads_abov", "unknown claim function 'heads_abov'; did you mean 'heads_above'?"),
        ("{share: 0.5}", "{shares: 0.5}", "unknown parameter 'shares' for claim function 'heads_above'"),
        ("{share: 0.5}", "{share: half}", "parameter 'share' of claim function 'heads_above' must be float, got str"),
        ("run: coin_runs", "run: coin_run", "unknown experiment function 'coin_run'"),
        ("check: heads_above", "check: heads_above\n    section: nowhere", "no section 'nowhere'"),
    ],
)
def test_a_claim_that_cannot_run_is_a_located_error_of_check(course, old, new, expected):
    lesson = course / "content/lessons/dot-product.yaml"
    lesson.write_text(lesson.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "coursegen", "check", "--root", str(course)],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin", "HOME": str(course.parent)},
        timeout=600,
    )
    assert done.returncode != 0
    assert re.search(r"content/lessons/dot-product\.yaml:\d+:\d+: " + re.escape(expected), done.stdout + done.stderr), (
        done.stdout + done.stderr
    )


@pytest.mark.slow  # seconds of work: the slow lane (.ci/run runs it)
def test_the_experiment_cache_holds_exactly_the_results_the_claims_read(course, tmp_path):
    assert build(course, tmp_path / "site").returncode == 0
    (cached,) = (course / ".coursegen-cache" / "experiments").glob("*.json")
    assert json.loads(cached.read_text())["value"] == {"seeds": list(SEEDS), "heads": _shares()}


def test_an_experiment_that_fails_is_a_located_error_of_the_build(course, tmp_path):
    lesson = course / "content/lessons/dot-product.yaml"
    lesson.write_text(lesson.read_text(encoding="utf-8").replace("bias: 0.7}", "bias: 2.0}"), encoding="utf-8")
    lines = lesson.read_text(encoding="utf-8").splitlines()
    line = next(n for n, text in enumerate(lines, 1) if text.strip() == "- id: coins")
    done = build(course, tmp_path / "site")
    assert done.returncode == 1
    assert re.search(
        rf"content/lessons/dot-product\.yaml:{line}:\d+: experiment 'coins' \(coin_runs\) failed: "
        r"ValueError: bias 2\.0 is not a probability",
        done.stderr,
    ), done.stderr
    assert not (tmp_path / "site").exists()


@pytest.mark.slow  # seconds of work: the slow lane (.ci/run runs it)
def test_a_claim_that_holds_with_too_small_a_margin_fails_the_build_at_the_claim(course, tmp_path):
    plugin = course / "content/plugins/runs.py"
    plugin.write_text(
        plugin.read_text(encoding="utf-8").replace(
            '(Measure({"en": "share of heads", "zh": "正面比例"}, values),))',
            '(Measure({"en": "share of heads", "zh": "正面比例"}, values),),\n'
            "                    min(v - share for v in values), 0.05)",
        ),
        encoding="utf-8",
    )
    share = round(min(_shares()) - 0.01, 3)  # every seed above it, the closest only 0.01 away
    lesson = course / "content/lessons/dot-product.yaml"
    lesson.write_text(
        lesson.read_text(encoding="utf-8").replace("{share: 0.5}", f"{{share: {share}}}"), encoding="utf-8"
    )
    done = build(course, tmp_path / "site")
    assert done.returncode == 1, done.stdout
    assert "claim 'mostly-heads' holds with too small a margin: a seed lies 0.010 from its threshold" in done.stderr
    assert not (tmp_path / "site").exists()
    lesson.write_text(
        lesson.read_text(encoding="utf-8").replace(f"{{share: {share}}}", "{share: 0.5}"), encoding="utf-8"
    )
    assert build(course, tmp_path / "site").returncode == 0  # with the seeds far from 0.5 it holds


@pytest.mark.slow  # a whole build in a fresh process
def test_a_backup_claim_is_shown_after_the_decks_summary_and_a_section_claim_after_its_section(course, tmp_path):
    """`deck: backup` moves a claim's results slide out of the lecture's flow: after the closing
    summary, under a backup divider; the page still shows both claims in their section."""
    lesson = course / "content/lessons/dot-product.yaml"
    extra = (
        "  - id: heads-backup\n"
        "    check: heads_above\n"
        "    deck: backup\n"
        "    params: {share: 0.55}\n"
        '    text: {en: "Backup: more than 55% heads in every seed.", zh: "备用：每个种子正面都超过 55%。"}\n'
    )
    lesson.write_text(lesson.read_text(encoding="utf-8") + extra, encoding="utf-8")
    assert min(_shares()) > 0.55  # so the backup claim holds on these runs
    done = build(course, tmp_path / "site")
    assert done.returncode == 0, done.stderr
    for lang, backup_title in (("en", "Backup: more results"), ("zh", "备用：更多结果")):
        deck = (tmp_path / "site" / lang / "slides" / "dot-product.html").read_text(encoding="utf-8")
        ids = re.findall(r'<section[^>]* id="([^"]+)"', deck)
        assert ids.index("results-mostly-heads") < ids.index("summary") < ids.index("backup")
        assert ids.index("backup") < ids.index("results-heads-backup")
        assert backup_title in deck
        page = (tmp_path / "site" / lang / "dot-product.html").read_text(encoding="utf-8")
        assert 'id="claim-mostly-heads"' in page and 'id="claim-heads-backup"' in page
