"""Checking one response, and grading a response CSV against each student's own variant."""

from __future__ import annotations

import csv
import io
import sqlite3

import pytest

from coursegen.errors import ContentErrors
from coursegen.quiz.grade import check, grade_responses, read_responses, summarise
from coursegen.quiz.show import answer_key
from coursegen.quiz.variants import make_variant


def item_of(loaded, question_id: str, student: str = "practice") -> dict:
    return next(i for i in make_variant(loaded, student)["questions"] if i["id"] == question_id)


def letter_of(item: dict, english: str) -> str:
    return "ABCDEFG"[[o["text"]["en"] for o in item["options"]].index(english)]


def test_single_choice_right_letter_scores_and_shows_its_feedback(loaded):
    item = item_of(loaded, "pick-one")
    outcome = check(item, letter_of(item, "The LM head"))
    assert outcome.score == 1 and outcome.feedback == [{"en": "Right.", "zh": "对。"}]


def test_single_choice_wrong_letter_shows_that_options_feedback(loaded):
    item = item_of(loaded, "pick-one")
    outcome = check(item, letter_of(item, "The position table"))
    assert outcome.score == 0 and outcome.feedback[0]["en"] == "No: that adds positions."


def test_multiple_answers_need_exactly_the_right_set(loaded):
    item = item_of(loaded, "pick-many")
    both = letter_of(item, "Fewer parameters") + ", " + letter_of(item, "One shared space")
    assert check(item, both).score == 1
    assert check(item, letter_of(item, "Fewer parameters")).score == 0


def test_true_false_accepts_words_in_both_languages(loaded):
    item = item_of(loaded, "tf")
    assert check(item, "false").score == 1 and check(item, "错").score == 1 and check(item, "对").score == 0


def test_numeric_wrong_value_gets_its_targeted_feedback(loaded):
    item = item_of(loaded, "num")
    assert check(item, "30").score == 1
    assert check(item, "13").feedback[0]["en"] == "You added V and D."


def test_shape_accepts_brackets_parentheses_and_x(loaded):
    item = item_of(loaded, "shp")
    assert all(check(item, r).score == 1 for r in ("[2, 5, 3]", "(2,5,3)", "2 x 5 x 3", "torch.Size([2, 5, 3])"))
    assert check(item, "[2, 5, 10]").feedback[0]["en"] == "That is V, not D."


def test_unreadable_shape_is_not_an_error_but_scores_zero(loaded):
    outcome = check(item_of(loaded, "shp"), "two by five")
    assert outcome.score == 0 and "could not be read" in outcome.feedback[0]["en"]


def test_short_answer_is_normalised_for_case_width_and_spaces(loaded):
    item = item_of(loaded, "word")
    assert check(item, "  Weight   TYING. ").score == 1 and check(item, "ｔｙｉｎｇ").score == 1
    assert check(item, "Dropout").feedback[0]["en"] == "Dropout is regularisation."


def test_matching_gives_partial_credit_and_feedback_for_wrong_pairs(loaded):
    item = item_of(loaded, "match")
    right = ["ABC"[c] for c in item["answer"]]
    assert check(item, ", ".join(right)).score == 1
    swapped = [right[1], right[0], right[2]]
    outcome = check(item, " ".join(swapped))
    assert outcome.score == pytest.approx(1 / 3) and len(outcome.feedback) == 2


def responses_csv(tmp_path, rows: list[tuple[str, str, str, str]]):
    path = tmp_path / "responses.csv"
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["student", "quiz", "question", "response"])
    writer.writerows(rows)
    path.write_text(out.getvalue(), encoding="utf-8")
    return path


def key_rows(loaded, student: str, as_student: str | None = None):
    variant = make_variant(loaded, student)
    return [
        (as_student or student, "mini", item["id"], answer_key(item).split(" | ")[0]) for item in variant["questions"]
    ]


def test_every_answer_from_the_key_scores_full_marks(loaded, tmp_path):
    rows = read_responses(responses_csv(tmp_path, key_rows(loaded, "alice")))
    (summary,) = summarise(grade_responses(rows, {"mini": loaded}))
    assert summary["score"] == summary["max_score"] == "10"


def test_each_student_is_graded_against_their_own_variant(loaded, tmp_path):
    students = [f"s{n}" for n in range(8)]
    rows = [row for s in students for row in key_rows(loaded, "alice", as_student=s)]
    summary = summarise(grade_responses(read_responses(responses_csv(tmp_path, rows)), {"mini": loaded}))
    assert any(s["score"] != s["max_score"] for s in summary)  # alice's numbers do not fit everyone


def test_unanswered_questions_score_zero(loaded, tmp_path):
    rows = read_responses(responses_csv(tmp_path, key_rows(loaded, "bob")[:3]))
    (summary,) = summarise(grade_responses(rows, {"mini": loaded}))
    assert summary["score"] == "3"


def test_unknown_quiz_is_an_error_with_the_csv_line(loaded, tmp_path):
    rows = read_responses(responses_csv(tmp_path, [("bob", "nope", "tf", "A")]))
    with pytest.raises(ContentErrors, match=r"responses:2:1: unknown quiz 'nope'"):
        grade_responses(rows, {"mini": loaded})


def test_missing_column_names_the_expected_header(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("student,answer\nbob,A\n", encoding="utf-8")
    with pytest.raises(Exception, match="expected the header: student,quiz,question,response"):
        read_responses(path)


def test_gradebook_keeps_every_run(loaded, tmp_path):
    from coursegen.quiz.grade import append_to_gradebook

    results = grade_responses(read_responses(responses_csv(tmp_path, key_rows(loaded, "eve"))), {"mini": loaded})
    book = tmp_path / "gradebook.sqlite"
    assert append_to_gradebook(book, results, "x") == 1 and append_to_gradebook(book, results, "x") == 2
    with sqlite3.connect(book) as db:
        assert db.execute("SELECT COUNT(*) FROM quiz_results").fetchone()[0] == 2 * len(results)
