"""Reports, all written from the same SubmissionResult objects.

    text(results)        for a terminal
    json(results)        every field, for tools
    gradescope(result)   Gradescope's results.json
    junit(results)       JUnit XML (CI test reports)
    markdown(results)    a summary (e.g. $GITHUB_STEP_SUMMARY)

Each takes one SubmissionResult or a list (a batch) and returns a string; output is
deterministic (no timestamps, no durations). Hidden checks never carry more than their
name, points and pass/fail (grading already blanked their feedback; the reports do not
rely on that alone): a failed one shows the property it names and the hints of the mistakes
it matched, rebuilt from their ids with `course`'s catalogue (keyword `course`, the
grader.course.Course graded; without it, no hint).

Student ids and submission names are the student's own text (file and folder names): every
format writes them as data (grader.textsafe): one escaped line in text, escaped Markdown and
HTML in Markdown, valid text (\\xNN for bytes that were not UTF-8) in JSON and XML.
"""

from __future__ import annotations

import json as _json
from typing import TYPE_CHECKING, Iterable
from xml.etree import ElementTree as ET

from grader.feedback import say
from grader.hints import hints_of
from grader.reporting.results import CheckResult, SubmissionResult
from grader.reporting.problems import kind_of
from grader.textsafe import display_name, html_text, markdown_text, one_line

if TYPE_CHECKING:
    from grader.course import Course

FORMATS = ("text", "json", "gradescope", "junit", "markdown")
Results = SubmissionResult | Iterable[SubmissionResult]


def _as_list(results: SubmissionResult | Iterable[SubmissionResult]) -> list[SubmissionResult]:
    return [results] if isinstance(results, SubmissionResult) else list(results)


def _points(value: float) -> str:
    return f"{value:g}"


def _visible_output(test: CheckResult, lang: str, course: Course | None) -> str:
    if test.hidden:
        if test.status == "passed":
            return ""
        # the property the check names (its first line, written by the grader) and the hints of
        # the mistakes it matched, rebuilt from their ids: never a line the student's code could write
        prefix = say("hidden_failed_property", lang, property="")
        guard_head, _, guard_tail = say("hidden_failed_guard", lang, name="\0").partition("\0")
        first = test.output.split("\n", 1)[0]
        is_guard = first.startswith(guard_head) and first.endswith(guard_tail)
        if not first.startswith(prefix) and not is_guard:
            return say("hidden_failed", lang)
        hints = hints_of(course, test.mistakes, lang) if course is not None else []
        return "\n".join([first, *(say("hint", lang, hint=h) for h in hints)])
    return test.output


def render(results: Results, fmt: str, *, course: Course | None = None) -> str:
    """The report in format `fmt` (one of FORMATS)."""
    renderers = {"text": text, "json": json, "gradescope": gradescope, "junit": junit, "markdown": markdown}
    if fmt not in renderers:
        raise ValueError(f"unknown report format {fmt!r}; expected one of {', '.join(FORMATS)}")
    return renderers[fmt](results, course=course)


# ---- text ------------------------------------------------------------------------------------


def text(results: Results, *, course: Course | None = None) -> str:
    blocks = [_text_one(r, course) for r in _as_list(results)]
    return "\n".join(blocks)


def lateness_line(lateness: dict, lang: str) -> str:
    """`raw score 13; late by 1 d 2 h; late penalty 1.3; final score 11.7` (a result's `lateness`)."""
    from grader.reporting.lateness import late_by_text

    return say(
        "lateness_line",
        lang,
        raw=_points(lateness["raw"]),
        late_by=late_by_text(lateness["late_by_seconds"], lang, late_marked=bool(lateness.get("late_marked"))),
        penalty=_points(lateness["penalty"]),
        final=_points(lateness["final"]),
    )


def _text_one(result: SubmissionResult, course: Course | None) -> str:
    lang = result.lang
    lines = [
        f"{one_line(result.student)} ({one_line(result.submission)}): {say('score', lang)} "
        f"{_points(result.score)}/{_points(result.max_score)}"
    ]
    if result.graded_against:
        lines.append(f"  {say('graded_against', lang)}: {one_line(result.graded_against)}")
    if result.lateness is not None:
        lines.append(f"  {lateness_line(result.lateness, lang)}")
    for problem in result.problems_in(lang):
        lines.append(f"  ! {one_line(problem)}")
    exercise = None
    for test in result.tests:
        if test.exercise != exercise:
            exercise = test.exercise
            earned = sum(t.score for t in result.tests if t.exercise == exercise)
            possible = sum(t.max_score for t in result.tests if t.exercise == exercise)
            lines.append(f"  {exercise}: {_points(earned)}/{_points(possible)}")
        mark = "PASS" if test.status == "passed" else "FAIL"
        hidden = f" [{say('hidden', lang)}]" if test.hidden else ""
        lines.append(f"    {mark} {test.name}{hidden} ({_points(test.score)}/{_points(test.max_score)})")
        output = _visible_output(test, lang, course)
        if output and test.status != "passed":
            lines.extend(f"         {line}" for line in output.splitlines())
    return "\n".join(lines) + "\n"


# ---- json ------------------------------------------------------------------------------------


def json(results: Results, *, course: Course | None = None) -> str:
    def clean(result: SubmissionResult) -> dict:
        data = result.to_dict()
        data["student"], data["submission"] = display_name(result.student), display_name(result.submission)
        for test, original in zip(data["tests"], result.tests):
            test.pop("fingerprint", None)  # for the instructor's `mistakes propose` only
            test["output"] = _visible_output(original, result.lang, course)
            if original.hidden:  # which mistake a hidden check's output matched says what it tested
                test["mistakes"], test["problem"] = [], ""
        shown = {kind_of(t.problem) for t in result.tests if not t.hidden} | {"unreadable"}
        data["problem_kinds"] = [k for k in result.problem_kinds if k in shown]  # nor what went wrong in one
        return data

    if isinstance(results, SubmissionResult):
        payload: object = clean(results)
    else:
        payload = [clean(r) for r in results]
    return _json.dumps(payload, ensure_ascii=False, indent=2, sort_keys=True) + "\n"


# ---- gradescope ------------------------------------------------------------------------------


def gradescope_dict(result: SubmissionResult, course: Course | None = None) -> dict:
    """Gradescope's results.json for one submission."""
    tests = []
    for test in result.tests:
        tests.append(
            {
                "name": f"{test.exercise}: {test.name}",
                "score": test.score,
                "max_score": test.max_score,
                "status": test.status,
                "output": _visible_output(test, result.lang, course),
                "visibility": "after_due_date" if test.hidden else "visible",
            }
        )
    # Only fields Gradescope documents: it has no top-level max_score (it sums the tests'), so
    # ours, which also holds for a submission with no tests (0/19), goes into extra_data.
    return {
        "score": result.score,
        "output": "\n".join(result.problems_in(result.lang)),
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "extra_data": {"max_score": result.max_score},
        "tests": tests,
    }


def gradescope(results: Results, *, course: Course | None = None) -> str:
    """results.json for one submission; for a batch, a JSON list of them (one per submission)."""
    if isinstance(results, SubmissionResult):
        payload: object = gradescope_dict(results, course)
    else:
        payload = [
            dict(
                gradescope_dict(r, course),
                student=display_name(r.student),
                submission=display_name(r.submission),
                max_score=r.max_score,
            )
            for r in results
        ]
    return _json.dumps(payload, ensure_ascii=False, indent=2, sort_keys=True) + "\n"


# ---- junit -----------------------------------------------------------------------------------


def junit(results: Results, *, course: Course | None = None) -> str:
    results = _as_list(results)
    root = ET.Element(
        "testsuites",
        {
            "tests": str(sum(len(r.tests) for r in results)),
            "failures": str(sum(1 for r in results for t in r.tests if t.status != "passed")),
        },
    )
    for result in results:
        failures = sum(1 for t in result.tests if t.status != "passed")
        suite = ET.SubElement(
            root,
            "testsuite",
            {
                "name": f"{display_name(result.student)} ({display_name(result.submission)})",
                "tests": str(len(result.tests)),
                "failures": str(failures),
                "errors": "0",
                "skipped": "0",
            },
        )
        properties = ET.SubElement(suite, "properties")
        ET.SubElement(properties, "property", {"name": "score", "value": _points(result.score)})
        ET.SubElement(properties, "property", {"name": "max_score", "value": _points(result.max_score)})
        for problem in result.problems_in(result.lang):
            ET.SubElement(properties, "property", {"name": "problem", "value": problem})
        for test in result.tests:
            case = ET.SubElement(suite, "testcase", {"classname": test.exercise, "name": test.name})
            if test.status != "passed":
                output = _visible_output(test, result.lang, course)
                failure = ET.SubElement(case, "failure", {"message": output.splitlines()[0] if output else "failed"})
                failure.text = output
    ET.indent(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


# ---- markdown --------------------------------------------------------------------------------


def markdown(results: Results, *, course: Course | None = None) -> str:
    results = _as_list(results)
    lines: list[str] = []
    for result in results:
        lang = result.lang
        lines.append(f"## {markdown_text(result.student)}: {_points(result.score)}/{_points(result.max_score)}")
        lines.append("")
        for problem in result.problems_in(lang):
            lines.append(f"> {_md(problem)}")
        if result.problems:
            lines.append("")
        if result.tests:
            lines.append(
                f"| {say('exercise', lang)} | {say('check', lang)} | {say('points', lang)} | {say('status', lang)} |"
            )
            lines.append("|---|---|---|---|")
            for test in result.tests:
                status = "✅ " + say("passed", lang) if test.status == "passed" else "❌ " + say("failed", lang)
                hidden = f" ({say('hidden', lang)})" if test.hidden else ""
                lines.append(
                    f"| {test.exercise} | `{test.name}`{hidden} | {_points(test.score)}/"
                    f"{_points(test.max_score)} | {status} |"
                )
            lines.append("")
            failing = [t for t in result.tests if t.status != "passed" and not t.hidden and t.output]
            for test in failing:
                lines.append(f"<details><summary><code>{html_text(test.name)}</code></summary>\n")
                lines.append("```text")
                lines.append(test.output.replace("```", "'''"))
                lines.append("```")
                lines.append("</details>")
                lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n"


def _md(text: str) -> str:
    return markdown_text(text)
