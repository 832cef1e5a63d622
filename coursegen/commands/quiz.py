"""`coursegen quiz show|export|verify|grade`: quiz variants, LMS exports, the quality gate, grading."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ._common import fail_on_content_errors, root_option


@click.group(invoke_without_command=True)
@root_option
@click.option("--lesson", "-l", default=None, help="Shortcut for `quiz show --lesson L`.")
@click.option("--student", "-s", default=None, help="With --lesson: that student's variant.")
@click.option(
    "--roster",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    default=None,
    help="With --lesson and -o FOLDER: one variant per student.",
)
@click.option("-o", "--output", type=click.Path(path_type=Path), default=None, help="Write instead of printing.")
@click.pass_context
def quiz(ctx, root, lesson, student, roster, output) -> None:
    """Quiz variants, exports for Moodle and Canvas, the quality gate and grading.

    `coursegen quiz --lesson L --student ID` is short for `coursegen quiz show --lesson L --student ID`.
    """
    if ctx.invoked_subcommand is not None:
        return
    if lesson is None:
        click.echo(ctx.get_help())
        return
    ctx.invoke(
        quiz_show,
        root=root,
        lesson=lesson,
        student=student,
        roster=roster,
        lang="en",
        fmt="text",
        answers=False,
        output=output,
    )


def _quizzes(root: Path, lessons: tuple[str, ...] | list[str] = ()):
    from coursegen.quiz.load import course_quizzes

    return course_quizzes(root, list(lessons) or None)


@quiz.command("show")
@root_option
@click.option("--lesson", "-l", required=True, help="The lesson id whose quiz to show.")
@click.option("--student", "-s", default=None, help="The student id (the variant depends on it). [default: practice]")
@click.option(
    "--roster",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    default=None,
    help="A roster (CSV with a 'student' column, or a YAML list): one variant per student; needs -o DIR.",
)
@click.option("--lang", type=click.Choice(["en", "zh"]), default="en", show_default=True)
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--answers", is_flag=True, help="Include the answer key (for instructors).")
@click.option(
    "-o",
    "--output",
    type=click.Path(path_type=Path),
    default=None,
    help="Write to this file (with --roster: this folder, one file per student).",
)
@fail_on_content_errors
def quiz_show(root, lesson, student, roster, lang, fmt, answers, output) -> None:
    """Print or write one student's variant of a lesson's quiz (deterministic per student and quiz)."""
    import json

    from coursegen.quiz.show import read_roster, render_text
    from coursegen.quiz.variants import PRACTICE, make_variant

    if roster and student:
        raise click.UsageError("give --student or --roster, not both")
    if roster and not output:
        raise click.UsageError("--roster writes one file per student: give -o FOLDER")
    (loaded,) = _quizzes(root, [lesson])

    def text(student_id: str) -> str:
        variant = make_variant(loaded, student_id)
        if fmt == "json":
            return json.dumps(variant, ensure_ascii=False, indent=2, sort_keys=True) + "\n"
        return render_text(variant, lang, answers)

    if roster:
        students = read_roster(roster)
        pages = {s: text(s) for s in students}  # everything computed before anything is written
        output.mkdir(parents=True, exist_ok=True)
        for s, page in pages.items():
            safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in s)
            (output / f"{loaded.quiz.id}-{safe}.{'json' if fmt == 'json' else 'txt'}").write_text(
                page, encoding="utf-8"
            )
        click.echo(f"wrote {len(pages)} variant(s) to {output}", err=True)
    elif output:
        output.write_text(text(student or PRACTICE), encoding="utf-8")
        click.echo(f"wrote {output}", err=True)
    else:
        click.echo(text(student or PRACTICE), nl=False)


@quiz.command("export")
@root_option
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["gift", "moodle-xml", "qti", "json"]),
    required=True,
    help="gift / moodle-xml (Moodle), qti (Canvas QTI 1.2 zip), json.",
)
@click.option("--lesson", "-l", "lessons", multiple=True, help="Only this lesson's quiz (repeatable). [default: all]")
@click.option("--student", "-s", default=None, help="Export this student's variant. [default: practice]")
@click.option(
    "--roster",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    default=None,
    help="Export every student's variant (one category / assessment each).",
)
@click.option(
    "-o", "--output", type=click.Path(dir_okay=False, path_type=Path), required=True, help="The file to write."
)
@fail_on_content_errors
def quiz_export(root, fmt, lessons, student, roster, output) -> None:
    """Export quizzes for an LMS. Same input, same bytes."""
    from coursegen.quiz.exports import write_export
    from coursegen.quiz.show import read_roster
    from coursegen.quiz.variants import PRACTICE, make_variant

    if roster and student:
        raise click.UsageError("give --student or --roster, not both")
    students = read_roster(roster) if roster else [student or PRACTICE]
    variants = [make_variant(loaded, s) for loaded in _quizzes(root, lessons) for s in students]
    write_export(variants, fmt, output)
    click.echo(f"wrote {output} ({len(variants)} quiz variant(s), {fmt})", err=True)


@quiz.command("verify")
@root_option
def quiz_verify(root) -> None:
    """Run the quiz quality gate: answers compute, distractors differ from answers, enough variants,
    and every generated key agrees with its independent oracle. Proofs are cached as `coursegen
    verify` caches them (the same cache): only what changed since is proven again."""
    from coursegen.quiz.verify_cache import verify_quizzes_cached
    from grader.verifying.proof_cache import verify_cache

    problems = verify_quizzes_cached(root, verify_cache(root), progress=True)
    for problem in problems:
        click.echo(problem, err=True)
    if problems:
        click.echo(f"{len(problems)} quiz problem(s).", err=True)
        sys.exit(1)
    click.echo("OK: every quiz passes the quality gate; every generated key agrees with its oracle.")


@quiz.command("grade")
@root_option
@click.argument("responses", type=click.Path(dir_okay=False, exists=True, path_type=Path))
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    required=True,
    help="scores.csv: student,quiz,score,max_score,percent.",
)
@click.option(
    "--details",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Also write one row per question: student,quiz,question,response,points,max_points.",
)
@click.option(
    "--gradebook",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Append this run to a SQLite gradebook (tables quiz_runs, quiz_results).",
)
@fail_on_content_errors
def quiz_grade(root, responses, output, details, gradebook) -> None:
    """Grade RESPONSES.csv (student,quiz,question,response) against each student's own variant.

    Responses: option letters as shown in the student's variant (A, B, ...), numbers, shapes
    like [4, 128, 32000], short text; matching as the letters in item order ("B, A, C").
    """
    from coursegen.quiz import grade

    rows = grade.read_responses(responses)
    quizzes = {loaded.quiz.id: loaded for loaded in _quizzes(root)}
    results = grade.grade_responses(rows, quizzes, str(responses))
    summary = grade.summarise(results)
    output.write_text(grade.scores_csv(summary), encoding="utf-8")
    if details:
        details.write_text(grade.details_csv(results), encoding="utf-8")
    if gradebook:
        run = grade.append_to_gradebook(gradebook, results, grade.file_sha256(responses))
        click.echo(f"gradebook {gradebook}: run {run}", err=True)
    click.echo(f"graded {len(summary)} quiz attempt(s); wrote {output}", err=True)
