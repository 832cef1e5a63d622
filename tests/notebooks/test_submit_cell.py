"""A course whose `submission:` route is `service` gives every notebook `submit()` with the
assignments of its exercises, says so in the notebook and in the student guide (en + zh); any
other route gives neither."""

from __future__ import annotations

import nbformat

from tests.term.course import make_term_course

LMS = 'submission:\n  route: lms\n  where: {en: "the course\'s assignment page", zh: 课程的作业页面}\n'
URL = "https://grader.example.edu/course/"


def _course(dest, route: str):
    root = make_term_course(dest)
    course = root / "content" / "course.yaml"
    text = course.read_text(encoding="utf-8")
    assert LMS in text
    if route == "service":
        course.write_text(text.replace(LMS, f"submission:\n  route: service\n  url: {URL}\n"), encoding="utf-8")
    from coursegen.loader import load_course

    return load_course(root)


def _tools_and_how_to(outputs: dict, lesson: str, lang: str) -> tuple[str, str]:
    notebook = nbformat.reads(outputs[f"notebooks/{lang}/{lesson}.ipynb"].decode("utf-8"), as_version=4)
    roles = {cell.id.split("--", 1)[1]: cell.source for cell in notebook.cells}
    return roles["selfcheck-tools"], roles["text-exercises"]


def test_a_service_course_gives_each_notebook_submit_for_its_assignment(tmp_path):
    from coursegen.notebooks import render_notebooks
    from coursegen.student_guide import guide_markdown

    loaded = _course(tmp_path / "numerics", "service")
    outputs = render_notebooks(loaded, cache_dir=tmp_path / "cache")
    for lesson in ("quadrature", "running"):
        for lang, words in (("en", "run `submit()` in a new cell"), ("zh", "在新单元中运行 `submit()`")):
            tools, how_to = _tools_and_how_to(outputs, lesson, lang)
            namespace: dict = {}
            exec(compile(tools, "<tools cell>", "exec"), namespace)
            assert namespace["_SUBMISSION"] == {
                "url": URL,
                "lang": lang,
                "notebook": f"{lesson}.ipynb",
                "assignments": {"hw1": ["quadrature.ipynb", "running.ipynb"]},  # hw1 spans both lessons
            }
            assert words in how_to
    guide = guide_markdown(loaded)
    assert "run `submit()` in a new cell" in guide and "在新单元中运行 `submit()`" in guide
    assert "COURSEGEN_TOKEN" in guide and "never saved in the" in guide


def test_another_route_gives_no_submit(tmp_path):
    from coursegen.notebooks import render_notebooks
    from coursegen.student_guide import guide_markdown

    loaded = _course(tmp_path / "numerics", "lms")
    outputs = render_notebooks(loaded, cache_dir=tmp_path / "cache")
    tools, how_to = _tools_and_how_to(outputs, "quadrature", "en")
    assert "def submit(" not in tools and "submit()" not in how_to
    assert "submit()" not in guide_markdown(loaded)
