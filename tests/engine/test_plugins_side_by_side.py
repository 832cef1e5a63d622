"""Two courses' plugins in one process: each course's quiz answers, oracles, figures and self-checks
come from its own content/plugins/, neither sees the other's, and loading one never changes another.

The courses: tests/courses/statistics (answer functions, oracles, two figures, self-checks),
tests/courses/numerics (self-checks only), a `coursegen new` course, and its twin: a second new
course whose content/plugins is a link to the first one's, with a different reference `dot`. The
expected values below are worked out by hand from each course's files, not by the engine.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from coursegen import drawing
from coursegen.errors import ContentError
from coursegen.newcourse import write_new_course
from coursegen.plugin import answer_function, reference
from coursegen.plugin_loading import forget_plugins, load_plugins
from coursegen.quiz.answers import answer_functions, oracles
from coursegen.selfcheck_cases import by_exercise

REPO = Path(__file__).resolve().parents[2]
STATISTICS = REPO / "tests" / "courses" / "statistics"
NUMERICS = REPO / "tests" / "courses" / "numerics"

STATISTICS_ANSWERS = {
    "mean_of_four",
    "median_of_four",
    "mean_after_adding",
    "population_variance",
    "sample_variance",
    "scaled_variance",
}


@pytest.fixture(scope="module")
def new_courses(tmp_path_factory) -> tuple[Path, Path]:
    """A `coursegen new` course, and its twin sharing its plugin files (a link) but whose reference
    `dot` doubles the dot product."""
    folder = tmp_path_factory.mktemp("side-by-side")
    first, twin = folder / "first", folder / "twin"
    write_new_course(first)
    write_new_course(twin)
    shutil.rmtree(twin / "content" / "plugins")
    (twin / "content" / "plugins").symlink_to(first / "content" / "plugins", target_is_directory=True)
    reference_file = twin / "solutions" / "vectors.py"
    text = reference_file.read_text(encoding="utf-8")
    doubled = text.replace(
        "return float(sum(x * y for x, y in zip(a, b)))", "return 2.0 * sum(x * y for x, y in zip(a, b))"
    )
    assert doubled != text
    reference_file.write_text(doubled, encoding="utf-8")
    return first, twin


def test_each_course_sees_only_what_its_own_plugins_register(new_courses):
    first, _twin = new_courses
    assert set(answer_functions(STATISTICS)) == STATISTICS_ANSWERS
    assert set(answer_functions(first)) == {"dot_value"}
    assert answer_functions(NUMERICS) == {}  # numerics writes no answer function
    assert set(oracles(STATISTICS)) == STATISTICS_ANSWERS and set(oracles(first)) == {"dot_value"}
    assert set(drawing.figures(STATISTICS)) == {"dot_plot", "squared_deviations"}
    assert set(drawing.figures(first)) == {"two_vectors"}
    assert drawing.figures(NUMERICS) == {}
    assert set(by_exercise(STATISTICS)) == {"mean", "median", "variance"}
    assert set(by_exercise(NUMERICS)) == {"trapezoid", "cumulative_trapezoid"}
    assert set(by_exercise(first)) == {"dot"}


def test_a_course_is_told_about_its_own_figure_kinds_only(new_courses):
    first, _twin = new_courses
    assert drawing.check_params(STATISTICS, "dot_plot", {}) == []
    [(where, message)] = drawing.check_params(first, "dot_plot", {})
    assert where == "" and "unknown figure kind 'dot_plot' (expected one of: two_vectors)" in message
    [(_, message)] = drawing.check_params(NUMERICS, "two_vectors", {})
    assert "this course defines no figure" in message
    assert drawing.draw_svg(STATISTICS, "dot_plot", {}).startswith("<svg")


def test_answers_are_computed_with_each_course_s_own_references_and_mistakes(new_courses):
    first, _twin = new_courses
    # statistics: the median of [1, 2, 4, 7] is (2 + 4) / 2; its catalogued mistake takes the lower middle, 2
    median = answer_functions(STATISTICS)["median_of_four"].func(a=1, b=2, c=4, d=7)
    assert median.answer == 3.0
    assert median.wrong["median-lower-middle"].value == 2.0 and median.wrong["median-lower-middle"].from_mistake
    assert median.wrong["mean"].value == 3.5  # (1 + 2 + 4 + 7) / 4
    # the new course: [1, 2] . [3, 4] = 11; its oracle says the same
    assert answer_functions(first)["dot_value"].func(a1=1, a2=2, b1=3, b2=4).answer == 11.0
    assert oracles(first)["dot_value"](a1=1, a2=2, b1=3, b2=4) == 11.0


def test_courses_sharing_plugin_files_import_them_once_each(new_courses):
    first, twin = new_courses
    mine, theirs = answer_functions(first)["dot_value"], answer_functions(twin)["dot_value"]
    assert mine.func is not theirs.func  # the same file, imported under each course's package
    assert theirs.func(a1=1, a2=2, b1=3, b2=4).answer == 22.0  # the twin's reference doubles 11
    assert mine.func(a1=1, a2=2, b1=3, b2=4).answer == 11.0


def test_a_course_used_again_after_another_loaded_is_unchanged(new_courses):
    first, _twin = new_courses
    before = dict(answer_functions(STATISTICS)), dict(drawing.figures(STATISTICS)), dict(by_exercise(STATISTICS))
    mean = answer_functions(STATISTICS)["mean_of_four"].func(a=1, b=2, c=3, d=6).answer
    load_plugins(first)
    load_plugins(NUMERICS)
    assert set(answer_functions(first)) == {"dot_value"}
    after = dict(answer_functions(STATISTICS)), dict(drawing.figures(STATISTICS)), dict(by_exercise(STATISTICS))
    assert after == before
    assert mean == 3.0 and answer_functions(STATISTICS)["mean_of_four"].func(a=1, b=2, c=3, d=6).answer == 3.0


def test_a_plugin_that_fails_to_import_is_an_error_at_its_line_and_leaves_other_courses_alone(tmp_path):
    broken = tmp_path / "broken"
    shutil.copytree(NUMERICS, broken)
    plugin = broken / "content" / "plugins" / "zz_broken.py"
    plugin.write_text('"""A plugin that fails."""\n\nraise RuntimeError("no such table")\n', encoding="utf-8")
    for _ in range(2):  # a failed load leaves nothing behind: the next use fails the same way
        with pytest.raises(ContentError) as caught:
            by_exercise(broken)
        assert str(caught.value).startswith(f"{plugin}:3")
        assert "plugin module failed to import: RuntimeError: no such table" in str(caught.value)
    assert set(by_exercise(NUMERICS)) == {"trapezoid", "cumulative_trapezoid"}
    plugin.unlink()
    forget_plugins(broken)
    assert set(by_exercise(broken)) == {"trapezoid", "cumulative_trapezoid"}


def test_only_a_course_s_plugin_modules_register_or_ask_for_references():
    def tying_saved() -> None: ...

    with pytest.raises(ValueError, match="is not a course's plugin module"):
        answer_function("tying_saved", kind="number")(tying_saved)
    with pytest.raises(RuntimeError, match=r"reference\(\) is for a course's plugin modules"):
        reference("dot")


def test_quizzes_and_notebooks_of_a_course_ignore_another_loaded_course(new_courses, tmp_path):
    """The content pipeline is handed its course: with another course's code and plugins loaded
    just before, a statistics quiz is still computed with statistics' references and its notebooks
    carry statistics' self-checks."""
    from coursegen.loader import load_course
    from coursegen.notebooks import write_notebook_folder
    from coursegen.quiz.load import course_quizzes
    from coursegen.quiz.variants import make_variant
    from coursegen.plugin_loading import load_plugins
    from grader.course import Course

    first, _twin = new_courses
    load_plugins(first)
    assert Course.load(first).registry.exercises  # the other course, loaded last
    quizzes = course_quizzes(STATISTICS)
    variants = [make_variant(quiz, "alice") for quiz in quizzes]
    loaded = load_course(STATISTICS, cache_dir=tmp_path / "cache")
    written = write_notebook_folder(loaded, tmp_path / "notebooks", cache_dir=tmp_path / "cache", languages=["en"])
    means = [
        item
        for quiz, variant in zip(quizzes, variants)
        for question, item in zip(quiz.quiz.questions, variant["questions"])
        if getattr(getattr(question, "generate", None), "answer", None) == "mean_of_four"
    ]
    assert means, "the statistics quizzes ask for a mean of four"
    for item in means:  # the mean, worked out here from the drawn parameters
        assert item["answer"] == sum(item["params"].values()) / 4
    text = "".join(path.read_text(encoding="utf-8") for path in written)
    # statistics' own self-check cases (its content/plugins/selfchecks.py), nothing of the new course
    assert "mean(torch.tensor([2.0, 3.0, 3.0, 4.0, 8.0]))" in text and "def dot" not in text


def test_the_lesson_schema_lists_the_figure_kinds_of_its_course(new_courses):
    from coursegen.jsonschema import lesson_json_schema

    first, _twin = new_courses
    for root, kinds in ((STATISTICS, ["dot_plot", "squared_deviations"]), (first, ["two_vectors"]), (NUMERICS, [])):
        figure = lesson_json_schema(root)["$defs"]["FigureBlock"]
        assert figure["properties"]["figure"]["enum"] == kinds
        assert [rule["if"]["properties"]["figure"]["const"] for rule in figure["allOf"]] == kinds


def test_a_course_s_plugin_code_is_never_sent_to_student_code(new_courses):
    """Plugin modules live beside the course's code package (`_coursegen_course_<hash>_plugins`),
    so the sandbox treats them as the course's own: an answer function (which holds the key) is
    refused like a reference would be."""
    from grader.sandbox.passing import encode_callable
    from grader.sandbox.wire import Unencodable

    first, _twin = new_courses
    answer = answer_functions(first)["dot_value"].func
    with pytest.raises(Unencodable) as refused:
        encode_callable(answer, lambda value: value)
    assert f"defined in the module {answer.__module__}, which is never sent to student code" in refused.value.reason
