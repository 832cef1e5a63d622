"""Code examples: every lesson runs in one child process, each from a fresh start."""

from __future__ import annotations

import random

import pytest

from coursegen.build import build_site
from coursegen.errors import ContentErrors

ALPHA = "content/lessons/alpha.yaml"
BETA = "content/lessons/beta.yaml"
BETA_FIGURE = "      - kind: figure\n        id: rotation"


def add_beta_example(course, code: str) -> None:
    """Give lesson beta (which has no example) one code block, `beta-example`."""
    body = "\n".join("          " + line for line in code.splitlines())
    course.replace(
        BETA, BETA_FIGURE, f"      - kind: code\n        id: beta-example\n        code: |\n{body}\n{BETA_FIGURE}"
    )


def beta_page(course) -> str:
    return (course.root / "_site/en/beta.html").read_text(encoding="utf-8")


def test_examples_of_all_lessons_run_in_one_process(course):
    add_beta_example(course, 'print("beta says", 6 * 7)')
    report = build_site(course.root, course.root / "_site", progress=False)
    assert report.example_processes == 1
    assert report.examples_executed == 3
    assert "beta says 42" in beta_page(course)


def test_each_lesson_starts_with_a_fresh_namespace(course):
    add_beta_example(course, 'print("sees alpha table:", "table" in globals())')
    build_site(course.root, course.root / "_site", progress=False)
    assert "sees alpha table: False" in beta_page(course)


def test_each_lesson_starts_with_freshly_seeded_random_numbers(course):
    course.replace(ALPHA, 'print("rows:", len(table))', 'import random; random.random(); print("rows:", len(table))')
    add_beta_example(course, 'import random\nprint("draw", random.random())')
    build_site(course.root, course.root / "_site", progress=False)
    random.seed(0)
    assert f"draw {random.random()}" in beta_page(course)


def test_each_lesson_runs_in_its_own_empty_working_folder(course):
    course.replace(ALPHA, 'print("rows:", len(table))', 'open("left.txt", "w").close(); print("rows:", len(table))')
    add_beta_example(course, 'import os\nprint("files:", sorted(os.listdir(".")))')
    build_site(course.root, course.root / "_site", progress=False)
    assert "files: []" in beta_page(course)


def test_failures_in_several_lessons_are_all_reported_with_their_places(course):
    course.replace(ALPHA, 'print("row 1:", table[1])', 'print("row 1:", table[7])')
    add_beta_example(course, "x = 1\nprint(undefined_name)")
    with pytest.raises(ContentErrors) as caught:
        build_site(course.root, course.root / "_site", progress=False)
    messages = {str(error.location): error.message for error in caught.value.errors}
    alpha_place = course.position(ALPHA, 'print("row 1:", table[7])')
    beta_place = course.position(BETA, "print(undefined_name)")
    assert sorted(messages) == sorted([alpha_place, beta_place])
    assert "IndexError" in messages[alpha_place] and "Traceback" in messages[alpha_place]
    assert "code example 'beta-example' of lesson 'beta'" in messages[beta_place]
    assert "NameError: name 'undefined_name' is not defined" in messages[beta_place]


def test_a_lesson_that_fails_does_not_stop_the_next_lesson_from_being_cached(course):
    course.replace(ALPHA, 'print("row 1:", table[1])', 'print("row 1:", table[7])')
    add_beta_example(course, 'print("beta ok")')
    with pytest.raises(ContentErrors):
        build_site(course.root, course.root / "_site", progress=False)
    course.replace(ALPHA, 'print("row 1:", table[7])', 'print("row 1:", table[1])')
    report = build_site(course.root, course.root / "_site", progress=False)
    assert report.examples_cached == 1  # beta's block, saved although alpha failed in the same process
    assert report.examples_executed == 2  # alpha's two blocks ("second" needs "first"'s namespace)


def test_a_crash_of_the_example_process_names_the_lesson_it_was_running(course):
    add_beta_example(course, "import os\nos._exit(3)")
    with pytest.raises(ContentErrors) as caught:
        build_site(course.root, course.root / "_site", progress=False)
    (error,) = caught.value.errors
    assert "crashed during lesson 'beta'" in error.message and "exit 3" in error.message
    assert str(error.location).startswith(BETA)


@pytest.mark.slow  # imports torch in the example process
def test_torch_settings_changed_by_one_lesson_do_not_leak_into_the_next(course):
    course.replace(
        ALPHA,
        'print("rows:", len(table))',
        "import torch; torch.set_default_dtype(torch.float64); torch.set_printoptions(precision=1)\n"
        '          print("rows:", len(table))',
    )
    add_beta_example(course, 'import torch\nprint("dtype", torch.zeros(1).dtype, torch.tensor([0.123456]))')
    build_site(course.root, course.root / "_site", progress=False)
    assert "dtype torch.float32 tensor([0.1235])" in beta_page(course)
