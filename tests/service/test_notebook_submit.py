"""Issue 38, item 3: a course whose `submission:` route is `service` gives its notebooks `submit()`,
which posts the saved notebook (and the assignment's other notebooks beside it) to the grading
service and prints the grade in the notebook's language. Proved with a real `coursegen service
start` process on a loopback port and a real Jupyter kernel running the generated notebooks' code:
the printed score and checks are what `coursegen grade --assignment` gives for the same files."""

from __future__ import annotations

import sqlite3

import nbformat
import pytest

from tests.notebooks.nbhelpers import execute_one_after_another, printed
from tests.service.running import free_port, issue_tokens, start_service
from tests.term.course import ASSIGNMENT, grade_locally, make_term_course, write_student_folders

pytest.importorskip("httpx")
pytest.importorskip("nbclient")

pytestmark = [pytest.mark.slow]


def _service_course(dest, url: str):
    """The term course (hw1 spans both lessons) with `submission: {route: service, url}`."""
    root = make_term_course(dest)
    course = root / "content" / "course.yaml"
    text = course.read_text(encoding="utf-8")
    lms = 'submission:\n  route: lms\n  where: {en: "the course\'s assignment page", zh: 课程的作业页面}\n'
    assert lms in text
    course.write_text(text.replace(lms, f"submission:\n  route: service\n  url: {url}\n"), encoding="utf-8")
    return root


def _notebooks(root, lang: str) -> dict[str, bytes]:
    """A student's work in `lang`: quadrature solved (the solution notebook), running still the stub."""
    from coursegen.loader import load_course
    from coursegen.notebooks import notebook_relpath, render_notebooks

    out = render_notebooks(load_course(root), students=True, solutions=True, languages=[lang])
    return {
        "quadrature.ipynb": out[notebook_relpath("quadrature", lang, solution=True)],
        "running.ipynb": out[notebook_relpath("running", lang)],
    }


def _with_cells(data: bytes, *sources: str):
    notebook = nbformat.reads(data.decode("utf-8"), as_version=4)
    notebook.cells += [nbformat.v4.new_code_cell(source) for source in sources]
    return notebook


def test_submit_from_the_notebook_prints_what_grade_assignment_gives(tmp_path, monkeypatch):
    port = free_port()
    root = _service_course(tmp_path / "numerics", f"http://127.0.0.1:{port}/")
    folders = {lang: tmp_path / "work" / lang for lang in ("en", "zh")}
    files = {lang: _notebooks(root, lang) for lang in folders}
    for lang, folder in folders.items():
        folder.mkdir(parents=True)
        for name, data in files[lang].items():
            (folder / name).write_bytes(data)
    english = nbformat.reads(files["en"]["quadrature.ipynb"].decode("utf-8"), as_version=4)
    tools = next(c for c in english.cells if c.metadata["coursegen"]["role"] == "selfcheck")
    assert "def submit(" in tools.source and f"http://127.0.0.1:{port}/" in tools.source

    gradebook = tmp_path / "gradebook.sqlite"
    tokens = issue_tokens(gradebook, ["ana"], tmp_path)
    service = start_service(gradebook, "--root", str(root), "--workers", "1", port=port)
    try:
        monkeypatch.setenv("COURSEGEN_TOKEN", tokens["ana"])  # the kernel's environment: no prompt
        monkeypatch.chdir(folders["en"])  # the kernel's folder, as Jupyter starts it beside the notebook
        en, zh = execute_one_after_another(
            _with_cells(files["en"]["quadrature.ipynb"], "submit()", "submit(token='not-a-token')"),
            _with_cells(files["zh"]["quadrature.ipynb"], f"submit(path={str(folders['zh'] / 'quadrature.ipynb')!r})"),
            timeout=300,
        )
    finally:
        service.stop()
    seed = sqlite3.connect(gradebook).execute("SELECT value FROM meta WHERE key = 'batch_seed'").fetchone()[0]
    batch = write_student_folders(tmp_path / "batch", {"ana": files["en"]})
    expected = grade_locally(root, batch, tmp_path, "--seed", seed)["ana"]
    assert 0 < expected["score"] < expected["max_score"] == 7.0  # quadrature right, running a stub

    submitted, wrong_token = printed(en.cells[-2]), printed(en.cells[-1])
    assert "Sending quadrature.ipynb, running.ipynb" in submitted, submitted
    score = f"{expected['score']:.6g} / {expected['max_score']:.6g}"
    assert f"Score for {ASSIGNMENT}: {score}" in submitted, submitted
    lines = submitted.splitlines()
    assert expected["tests"], expected
    for test in expected["tests"]:
        mark = "[PASS]" if test["status"] == "passed" else "[FAIL]"
        assert any(line.startswith(f"{mark} {test['exercise']}: {test['name']}") for line in lines), (test, submitted)
    assert "The grading service did not accept your token" in wrong_token, wrong_token

    chinese = printed(zh.cells[-1])
    assert "正在提交 quadrature.ipynb, running.ipynb" in chinese, chinese
    assert f"作业 {ASSIGNMENT} 的得分：{score}" in chinese, chinese
    assert "Score for" not in chinese
