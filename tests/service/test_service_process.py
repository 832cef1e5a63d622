"""The grading service as students meet it: a real `coursegen service start` process on a loopback
port, driven over HTTP. Twenty students submit at once (correct, wrong and hostile files) and
every result equals `coursegen grade --assignment` on the same files with the gradebook's seed;
the door refuses what it must (401, 404, 413, 422, 429); a `kill -9` with submissions queued and
grading loses none and grades each once."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.service.running import (
    REPO,
    assert_graded_as_the_command,
    comparable,
    issue_tokens,
    start_service,
    wait_graded,
)

httpx = pytest.importorskip("httpx")

pytestmark = [pytest.mark.slow]

ASSIGNMENT = "position-sinusoidal"
FIXTURES = REPO / "tests" / "fixtures" / "submissions"
# short limits so that the hostile files end quickly; the same for the service and `coursegen grade`
LIMITS = {"COURSEGEN_SANDBOX_LIMITS": "call_seconds=2,import_seconds=5,total_seconds=10"}
CORRECT = (FIXTURES / "correct" / "positions.py").read_text(encoding="utf-8")
HOSTILE = {
    "kill_parent.py": "import os, signal\ntry:\n    os.kill(os.getppid(), signal.SIGKILL)\nexcept Exception:\n"
    "    pass\n" + CORRECT,
    "spin.py": "def sinusoidal_encoding(seq_len, d_model, base=10000.0):\n    while True:\n        pass\n",
    "flood.py": "import sys\n\ndef sinusoidal_encoding(seq_len, d_model, base=10000.0):\n    while True:\n"
    "        sys.stdout.write('x' * 65536)\n",
    "fake_grade.py": 'print(\'{"score": 16, "max_score": 16, "tests": []}\')\n\n'
    "def sinusoidal_encoding(seq_len, d_model, base=10000.0):\n    return None\n",
}


def _fixture(kind: str, name: str) -> tuple[str, bytes]:
    return name, (FIXTURES / kind / name).read_bytes()


def _hostile(name: str) -> tuple[str, bytes]:
    return name, HOSTILE[name].encode()


CLASS: dict[str, list[tuple[str, bytes]]] = {
    **{f"s{n:02d}": [_fixture("correct", "attention.py"), _fixture("correct", "positions.py")] for n in range(5)},
    **{f"s{n:02d}": [_fixture("correct", "positions.py")] for n in range(5, 9)},
    "s09": [_fixture("loops", "positions.py")],
    "s10": [_fixture("loops", "positions.py"), _fixture("correct", "attention.py")],
    "s11": [_fixture("missing_function", "positions.py")],
    "s12": [_fixture("syntax_error", "positions.py")],
    "s13": [_fixture("missing_function", "attention.py"), _fixture("syntax_error", "positions.py")],
    "s14": [_fixture("renamed", "smith_123_rope-1.py")],
    "s15": [_hostile("kill_parent.py")],
    "s16": [_hostile("spin.py")],
    "s17": [_hostile("flood.py")],
    "s18": [_hostile("fake_grade.py")],
    "s19": [_fixture("correct", "attention.py")],
}


def _post(client, url: str, token: str | None, files, assignment: str = ASSIGNMENT, **kw):
    headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
    parts = [("file", (name, data, "text/x-python")) for name, data in files]
    return client.post(f"{url}/api/v1/submissions", headers=headers, data={"assignment": assignment}, files=parts, **kw)


@pytest.fixture(scope="module")
def service(tmp_path_factory):
    folder = tmp_path_factory.mktemp("service")
    gradebook = folder / "gradebook.sqlite"
    tokens = issue_tokens(gradebook, [*CLASS, "quota-student", "revoked-student"], folder)
    running = start_service(gradebook, "--workers", "2", "--quota-per-hour", "3", "--max-bytes", "300000", env=LIMITS)
    yield running, tokens, folder
    running.stop()


@pytest.fixture(scope="module")
def graded(service):
    """Every student of CLASS submits at once; their results once graded."""
    running, tokens, _ = service
    with httpx.Client(timeout=60) as client:

        def one(student: str) -> dict:
            answer = _post(client, running.url, tokens[student], CLASS[student])
            assert answer.status_code == 202, answer.text
            assert answer.json()["status"] == "queued"
            return wait_graded(client, running.url, tokens[student], answer.json()["id"], seconds=300)

        with ThreadPoolExecutor(len(CLASS)) as pool:
            return dict(zip(CLASS, pool.map(one, CLASS)))


def test_every_result_equals_coursegen_grade_on_the_same_files(service, graded):
    running, _, folder = service
    batch = folder / "batch"
    for student, files in CLASS.items():
        (batch / student).mkdir(parents=True)
        for name, data in files:
            (batch / student / name).write_bytes(data)
    assert_graded_as_the_command(
        graded, batch, assignment=ASSIGNMENT, gradebook=running.gradebook, env={**os.environ, **LIMITS}, timeout=900
    )
    scores = {s: graded[s]["score"] for s in graded}
    assert scores["s00"] == 16 and scores["s05"] == 8  # the class is not all zeros: the comparison can fail
    assert all(scores[s] == 0 for s in ("s16", "s17", "s18")), scores


def test_hidden_checks_show_pass_or_fail_only(graded):
    hidden = [t for r in graded.values() for t in r["tests"] if t["hidden"]]
    assert hidden and all(t["output"] == "" for t in hidden)
    assert any(t["output"] for r in graded.values() for t in r["tests"] if not t["hidden"] and t["status"] == "failed")


def test_each_submission_is_one_run_in_the_gradebook(service, graded):
    running, _, _ = service
    uids = [row[0] for row in sqlite3.connect(running.gradebook).execute("SELECT uid FROM runs")]
    for result in graded.values():
        assert uids.count(f"service:{result['id']}") == 1


def test_a_missing_wrong_or_revoked_token_is_refused_with_401(service):
    running, tokens, folder = service
    files = CLASS["s05"]
    with httpx.Client(timeout=30) as client:
        for token in (None, "cg1.0000000000000000.wrong", tokens["s05"] + "x"):
            answer = _post(client, running.url, token, files)
            assert answer.status_code == 401 and answer.json()["reason"], answer.text
        subprocess.run(
            [sys.executable, "-m", "coursegen", "service", "revoke", "--gradebook", str(running.gradebook),
             "--student", "revoked-student"],
            cwd=REPO, check=True, capture_output=True, timeout=60,
        )  # fmt: skip
        answer = client.get(
            f"{running.url}/api/v1/submissions", headers={"Authorization": "Bearer " + tokens["revoked-student"]}
        )
        assert answer.status_code == 401


def test_a_student_reads_only_their_own_submissions(service, graded):
    running, tokens, _ = service
    theirs = graded["s00"]["id"]
    with httpx.Client(timeout=30) as client:
        other = client.get(
            f"{running.url}/api/v1/submissions/{theirs}", headers={"Authorization": f"Bearer {tokens['s01']}"}
        )
        assert other.status_code == 404 and other.json()["error"] == "not_found"
        teacher = client.get(
            f"{running.url}/api/v1/submissions/{theirs}", headers={"Authorization": f"Bearer {tokens['instructor']}"}
        )
        assert teacher.status_code == 200 and teacher.json()["student"] == "s00"
        mine = client.get(
            f"{running.url}/api/v1/submissions",
            params={"assignment": ASSIGNMENT},
            headers={"Authorization": f"Bearer {tokens['s01']}"},
        )
        assert [s["id"] for s in mine.json()["submissions"]] == [graded["s01"]["id"]]


def test_an_oversized_upload_is_refused_with_413_and_a_path_name_with_422(service):
    running, tokens, _ = service
    with httpx.Client(timeout=30) as client:
        big = _post(client, running.url, tokens["s02"], [("positions.py", b"#" * 300_001)])
        assert big.status_code == 413 and big.json()["error"] == "too_large"
        for name in ("../positions.py", "sub/positions.py", "positions.txt"):
            bad = _post(client, running.url, tokens["s02"], [(name, b"x = 1\n")])
            assert bad.status_code == 422 and bad.json()["error"] in ("bad_file_name",), (name, bad.text)
        unknown = _post(client, running.url, tokens["s02"], CLASS["s05"], assignment="no-such")
        assert unknown.status_code == 422 and unknown.json()["error"] == "unknown_assignment"


def test_past_the_quota_a_student_is_told_when_to_come_back(service):
    running, tokens, _ = service
    with httpx.Client(timeout=30) as client:
        for _ in range(3):
            assert _post(client, running.url, tokens["quota-student"], CLASS["s12"]).status_code == 202
        refused = _post(client, running.url, tokens["quota-student"], CLASS["s12"])
        assert refused.status_code == 429 and refused.json()["error"] == "quota"
        assert 3000 < int(refused.headers["Retry-After"]) <= 3601
        other = _post(
            client, running.url, tokens["quota-student"], [_fixture("correct", "rope.py")], assignment="rope-alibi"
        )
        assert other.status_code == 202  # the quota is per assignment


def test_metrics_for_the_instructor_only(service, graded):
    running, tokens, _ = service
    with httpx.Client(timeout=30) as client:
        text = client.get(f"{running.url}/metrics", headers={"Authorization": f"Bearer {tokens['instructor']}"}).text
        assert (
            client.get(f"{running.url}/metrics", headers={"Authorization": f"Bearer {tokens['s00']}"}).status_code
            == 403
        )
    count = [line for line in text.splitlines() if line.startswith("coursegen_service_grading_seconds_count")]
    assert count and int(count[0].split()[1]) >= len(CLASS)
    assert 'coursegen_service_queue_length{status="queued"}' in text


OWNERS = ["k1", "k1", "k2", "k1", "k2", "k1"]  # who sends each submission of the kill test (the first is slow)


def test_kill_9_with_submissions_queued_and_grading_loses_none_and_grades_each_once(tmp_path):
    gradebook = tmp_path / "gradebook.sqlite"
    tokens = issue_tokens(gradebook, ["k1", "k2"], tmp_path)
    slow = ("positions.py", b"import time\ntime.sleep(3)\n" + CORRECT.encode())
    running = start_service(gradebook, "--workers", "1", env=LIMITS)
    ids = []
    try:
        with httpx.Client(timeout=30) as client:
            for n, owner in enumerate(OWNERS):
                ids.append(_post(client, running.url, tokens[owner], [slow] if n == 0 else CLASS["s05"]).json()["id"])
        db = sqlite3.connect(gradebook)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            states = dict(db.execute("SELECT id, status FROM service_submissions").fetchall())
            if states[ids[0]] == "grading":
                break
            time.sleep(0.02)
        assert states[ids[0]] == "grading" and "queued" in states.values(), states
        os.kill(running.process.pid, signal.SIGKILL)
        running.process.wait(timeout=30)
    finally:
        running.stop()
    time.sleep(1.5)  # its grading processes notice their parent is gone (grader.scaleout.executors._exit_with_parent)
    restarted = start_service(gradebook, "--workers", "1", env=LIMITS)
    try:
        with httpx.Client(timeout=30) as client:
            results = [wait_graded(client, restarted.url, tokens[o], sid) for o, sid in zip(OWNERS, ids)]
    finally:
        restarted.stop()
    # a graceful stop: uvicorn ends with the signal it handled (SIGTERM) after the shutdown ran
    assert restarted.process.returncode in (0, -signal.SIGTERM)
    assert "coursegen service: stopped; 0 submission(s) left" in restarted.log.read_text()
    assert [r["status"] for r in results] == ["done"] * len(ids)
    assert results[0]["score"] == 8 and results[1]["score"] == 8
    uids = [row[0] for row in sqlite3.connect(gradebook).execute("SELECT uid FROM runs")]
    assert sorted(uids) == sorted(f"service:{sid}" for sid in ids)  # each graded once, nothing else recorded


def test_a_submission_sent_in_chinese_is_graded_in_chinese_and_scores_the_same(service, graded):
    running, tokens, _ = service
    with httpx.Client(timeout=60) as client:
        answer = _post(client, running.url, tokens["s06"], CLASS["s11"], params={"lang": "zh"})
        assert answer.status_code == 202
        result = wait_graded(client, running.url, tokens["s06"], answer.json()["id"], seconds=300)
        english = client.get(
            f"{running.url}/api/v1/submissions/{graded['s11']['id']}",
            headers={"Authorization": f"Bearer {tokens['s11']}", "Accept-Language": "zh-CN,zh;q=0.9"},
        ).json()
    assert result["feedback_lang"] == "zh" and result["message"] == "graded"  # read asking for no language
    assert (result["score"], comparable(result["tests"])) == (
        graded["s11"]["score"],
        comparable(graded["s11"]["tests"]),
    )
    failed = [t["output"] for t in result["tests"] if t["status"] == "failed" and not t["hidden"]]
    assert failed and all(any("\u4e00" <= c <= "\u9fff" for c in text) for text in failed), failed
    # the words around the result follow the reader's language; the feedback stays the one it was written in
    assert english["message"] == "已评分" and english["feedback_lang"] == "en"
