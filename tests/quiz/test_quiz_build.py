"""The quiz writer inside `coursegen build`: the quality gate fails the build; torch stays out of the build process."""

from __future__ import annotations

import subprocess
import sys

import pytest

from coursegen.errors import ContentErrors

pytestmark = pytest.mark.slow


def test_build_writes_a_quiz_page_per_language(course, tmp_path):
    from coursegen.build import build_site

    build_site(course, tmp_path / "site", progress=False)
    assert (tmp_path / "site/en/quiz-mini.html").is_file() and (tmp_path / "site/zh/quiz-mini.html").is_file()


def test_quiz_gate_problem_fails_the_build_and_writes_nothing(course, tmp_path, replace_in):
    from coursegen.build import build_site

    replace_in(course / "content/quizzes/mini.yaml", "{value: 13, feedback", "{value: 30, feedback")
    with pytest.raises(ContentErrors, match=r"content/quizzes/mini\.yaml:\d+:\d+: question 'num': distractor 30\.0"):
        build_site(course, tmp_path / "site", progress=False)
    assert not (tmp_path / "site").exists()


def test_build_process_never_imports_torch(course, tmp_path):
    code = (
        "import sys; from coursegen.build import build_site; "
        f"build_site({str(course)!r}, {str(tmp_path / 'site')!r}, progress=False); print('torch' in sys.modules)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"
