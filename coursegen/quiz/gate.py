"""The quiz quality gate, run by the build and by `coursegen verify` / `coursegen quiz verify`.

`static_problems` is the part that runs no code (`coursegen check` runs it too);
`verify_quiz` adds the part that computes answers. For every quiz it checks that:
- the quiz belongs to its lesson, has at least `quiz_gate.min_questions` questions (content/course.yaml,
  default 8), at least `quiz_gate.min_generated` generated (default 3), and
  every objective of the lesson is covered by some question (objective numbers exist);
- every text is bilingual (unless the lesson says `incomplete_translation: true`);
- hand-written questions: no two options read the same, no distractor equals the answer
  (numbers: within the tolerance), the displayed rounding is accepted by its own tolerance;
- generated questions (static): the answer function exists (with a did-you-mean) and has an
  oracle (@oracle in the course's content/plugins/), the question gives exactly its parameters, with values of
  the types its signature declares; the explanation shows {{answer}} in both languages;
- generated questions (computed): every answer computes; no catalogued wrong answer (a mistake of
  the catalogue run through the answer function, or a named distractor of it) lands within the
  question's tolerance of the key in any variant without being the key's number (the error names the
  variant's parameters and the mistake: a student making it would be told "Right"); and the
  parameter space yields at least `min_variants` (default 20) distinct valid variants. Variants whose
  own distractors give the key's number are not counted (the engine never hands them out).
"""

from __future__ import annotations

import itertools
import random
import re
from pathlib import Path

from coursegen.errors import ContentError, ContentErrors, did_you_mean
from coursegen.schema import QuizGate

from . import answers
from .kinds import kind_of
from .load import LoadedQuiz, course_quizzes
from .schema import GeneratedQuestion, Quiz
from .variants import (
    GenerationError,
    accepted_wrongs,
    bilingual,
    generated_item,
    hand_written_item,
    item_problems,
    stable_seed,
)

MAX_ENUMERATED = 240  # parameter combinations tried per generated question
PLACEHOLDER_ANSWER = re.compile(r"\{\{\s*answer\s*\}\}")


def _missing_translations(obj, path: tuple = ()) -> list[tuple]:
    """Paths of Text values whose `zh` is missing."""
    from pydantic import BaseModel

    from coursegen.schema import Text

    found = []
    if isinstance(obj, Text):
        return [path] if obj.zh is None else []
    if isinstance(obj, BaseModel):
        for name in type(obj).model_fields:
            found += _missing_translations(getattr(obj, name), path + (name,))
    elif isinstance(obj, (list, tuple)):
        for i, value in enumerate(obj):
            found += _missing_translations(value, path + (i,))
    elif isinstance(obj, dict):
        for key, value in obj.items():
            found += _missing_translations(value, path + (key,))
    return found


def _texts(item: dict):
    """Every bilingual text of a concrete item, as (where, {"en", "zh"})."""
    yield "text", item["text"]
    yield "explanation", item["explanation"]
    yield from kind_of(item["type"]).texts(item)


def math_problems(item: dict) -> list[str]:
    """LaTeX that the MathML converter would not render (unknown commands, unbalanced braces)."""
    from coursegen.markdown import spans
    from coursegen.mathml import check_latex

    found = []
    for where, text in _texts(item):
        for lang in ("en", "zh"):
            math, _links = spans(text[lang])
            for span in math:
                for _offset, message in check_latex(span.latex):
                    found.append(f"{where} ({lang}): {message} in ${span.latex}$")
    return found


def parameter_space(question: GeneratedQuestion) -> list[dict]:
    """Every parameter combination, or a fixed sample of MAX_ENUMERATED when there are more."""
    names = list(question.generate.params)
    axes = [question.generate.params[n].values() for n in names]
    total = 1
    for axis in axes:
        total *= len(axis)
    if total <= MAX_ENUMERATED:
        return [dict(zip(names, combo)) for combo in itertools.product(*axes)]
    rng = random.Random(stable_seed("gate", question.id))
    seen: set[tuple] = set()
    combos: list[dict] = []
    while len(combos) < MAX_ENUMERATED:
        combo = tuple(rng.choice(axis) for axis in axes)
        if combo not in seen:
            seen.add(combo)
            combos.append(dict(zip(names, combo)))
    return combos


def _value_fits(value, annotation) -> bool:
    """Does a YAML parameter value fit the answer function's annotation (int, float or str)?"""
    text = annotation if isinstance(annotation, str) else getattr(annotation, "__name__", "")
    if text == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    if text == "float":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if text == "str":
        return isinstance(value, str)
    return True


def static_generated_problems(loaded: LoadedQuiz, index: int, question: GeneratedQuestion) -> list[ContentError]:
    """What is wrong with a generated question that shows without running code."""
    import inspect

    name = question.generate.answer
    known = answers.answer_functions(loaded.course_root)
    function = known.get(name)
    if function is None:
        return [
            ContentError(
                loaded.where(index, "generate", "answer"),
                f"question '{question.id}': unknown answer function '{name}'"
                f"{did_you_mean(name, known)} "
                f"(known: {', '.join(sorted(known))})",
            )
        ]
    errors: list[ContentError] = []
    if name not in answers.oracles(loaded.course_root):
        errors.append(
            ContentError(
                loaded.where(index, "generate", "answer"),
                f"question '{question.id}': answer function '{name}' has no independent oracle: "
                f"add one with @oracle('{name}') in the course's content/plugins/",
            )
        )
    given, wanted = list(question.generate.params), list(function.params)
    for param in given:
        if param not in wanted:
            errors.append(
                ContentError(
                    loaded.where(index, "generate", "params", param),
                    f"question '{question.id}': '{name}' has no parameter '{param}'"
                    f"{did_you_mean(param, [w for w in wanted if w not in given])} "
                    f"(it takes {', '.join(wanted)})",
                )
            )
    missing = [w for w in wanted if w not in given]
    if missing:
        errors.append(
            ContentError(
                loaded.where(index, "generate", "params"),
                f"question '{question.id}': parameter(s) {', '.join(missing)} of '{name}' not given "
                f"(it takes {', '.join(wanted)})",
            )
        )
    signature = inspect.signature(function.func)
    for param, spec in question.generate.params.items():
        if param not in signature.parameters:
            continue
        annotation = signature.parameters[param].annotation
        bad = [v for v in spec.values() if not _value_fits(v, annotation)]
        if bad:
            kind = annotation if isinstance(annotation, str) else getattr(annotation, "__name__", annotation)
            errors.append(
                ContentError(
                    loaded.where(index, "generate", "params", param),
                    f"question '{question.id}': parameter '{param}' of '{name}' takes {kind} values, got {bad[0]!r}",
                )
            )
    for lang, text in bilingual(question.explanation).items():
        if not PLACEHOLDER_ANSWER.search(text):
            errors.append(
                ContentError(
                    loaded.where(index, "explanation", lang),
                    f"question '{question.id}': the explanation ({lang}) must show the key: "
                    f"put {{{{answer}}}} where the computed value goes",
                )
            )
    return errors


def _check_generated(loaded: LoadedQuiz, index: int, question: GeneratedQuestion) -> list[ContentError]:
    where = loaded.where(index, "generate")
    errors: list[ContentError] = []
    distinct: set[str] = set()
    first_problem = None
    combos = parameter_space(question)
    accepted: list[tuple[dict, str, float, float]] = []  # (params, wrong key, its value, the key)
    function = answers.answer_functions(loaded.course_root)[question.generate.answer]
    for params in combos:
        rng = random.Random(stable_seed("gate", question.id, repr(sorted(params.items()))))
        try:
            result = function.func(**params)
            accepted += [
                (params, k, v, float(result.answer)) for k, v in accepted_wrongs(question, result, function.kind)
            ]
            item = generated_item(loaded.course_root, question, params, rng, result=result)
        except answers.InvalidParams:
            continue
        except GenerationError as exc:
            return [ContentError(where, f"question '{question.id}': {exc}")]
        except Exception as exc:  # noqa: BLE001 - the reference code failed: report, do not crash the build
            return [
                ContentError(
                    where,
                    f"question '{question.id}': the answer does not compute for {params}: {type(exc).__name__}: {exc}",
                )
            ]
        problems = item_problems(item)
        if problems:
            first_problem = first_problem or f"{params}: {problems[0]}"
            continue
        if not distinct:  # the text is the same template for every variant: check its math once
            errors += [ContentError(where, f"question '{question.id}': {m}") for m in math_problems(item)]
        distinct.add(repr((item["text"]["en"], item.get("answer"), [o["text"]["en"] for o in item.get("options", [])])))
    if accepted:
        errors.append(
            _accepted_mistakes_error(loaded.where(index, "generate", "params"), question, accepted, len(combos))
        )
    wanted = question.generate.min_variants
    if len(distinct) < wanted:
        detail = f"; e.g. {first_problem}" if first_problem else ""
        errors.append(
            ContentError(
                where,
                f"question '{question.id}' yields {len(distinct)} distinct valid variant(s) "
                f"out of {len(combos)} parameter draws, fewer than {wanted}: widen the "
                f"parameter ranges or set min_variants with a reason{detail}",
            )
        )
    return errors


def _accepted_mistakes_error(where, question: GeneratedQuestion, accepted: list, draws: int) -> ContentError:
    """The variants in which a catalogued wrong answer would be marked right, the first few named."""
    shown = "; ".join(
        f"{_params_text(params)}: '{key}' gives {value:.6g}, the key is {answer:.6g}"
        for params, key, value, answer in accepted[:3]
    )
    more = f" (and {len(accepted) - 3} more)" if len(accepted) > 3 else ""
    variants = len({repr(sorted(p.items())) for p, *_ in accepted})
    keys = sorted({key for _p, key, *_ in accepted})
    tolerance = question.tolerance.describe() if question.tolerance else f"±{0.5 * 10**-question.decimals:g}"
    return ContentError(
        where,
        f"question '{question.id}': in {variants} of {draws} variant(s) a catalogued wrong answer "
        f"({', '.join(keys)}) lands within the tolerance {tolerance} of the key, so a student making that "
        f"mistake would be told it is right: {shown}{more}. Narrow the parameters to variants where "
        f"every mistake is told apart, or tighten the tolerance",
    )


def _params_text(params: dict) -> str:
    return "{" + ", ".join(f"{name}: {value!r}" for name, value in params.items()) + "}"


def verify_quiz(loaded: LoadedQuiz) -> list[ContentError]:
    """Every problem of one quiz, with file:line:column."""
    errors = static_problems(loaded)
    for index, question in enumerate(loaded.quiz.questions):
        # a question whose answer function or parameters are wrong is not computed
        if isinstance(question, GeneratedQuestion) and not static_generated_problems(loaded, index, question):
            errors += _check_generated(loaded, index, question)
    return errors


def static_problems(loaded: LoadedQuiz) -> list[ContentError]:
    """Every problem of one quiz that shows without running code (no torch, no reference)."""
    quiz: Quiz = loaded.quiz
    lesson = loaded.lesson
    errors: list[ContentError] = []
    top = loaded.where()
    if lesson is not None:
        if quiz.lesson != lesson.id:
            errors.append(
                ContentError(
                    loaded.doc.location(("lesson",)),
                    f"quiz says lesson '{quiz.lesson}' but lesson '{lesson.id}' links to it",
                )
            )
        if lesson.quiz != quiz.id:
            errors.append(
                ContentError(
                    loaded.doc.location(("id",)), f"quiz id '{quiz.id}' differs from the lesson's quiz: '{lesson.quiz}'"
                )
            )
    minimum = loaded.course.quiz_gate if loaded.course is not None else QuizGate()
    if len(quiz.questions) < minimum.min_questions:
        errors.append(
            ContentError(
                top,
                f"a quiz needs at least {minimum.min_questions} questions, found "
                f"{len(quiz.questions)} (quiz_gate.min_questions in content/course.yaml)",
            )
        )
    generated = [q for q in quiz.questions if isinstance(q, GeneratedQuestion)]
    if len(generated) < minimum.min_generated:
        errors.append(
            ContentError(
                top,
                f"a quiz needs at least {minimum.min_generated} generated questions, found "
                f"{len(generated)} (quiz_gate.min_generated in content/course.yaml)",
            )
        )
    if lesson is not None:
        count = len(lesson.objectives)
        covered = set()
        for index, question in enumerate(quiz.questions):
            for number in question.objectives:
                if number > count:
                    errors.append(
                        ContentError(
                            loaded.where(index, "objectives"),
                            f"objective {number} does not exist: lesson '{lesson.id}' has {count}",
                        )
                    )
                covered.add(number)
        for number in range(1, count + 1):
            if number not in covered:
                errors.append(
                    ContentError(
                        top,
                        f"no question covers objective {number} of lesson '{lesson.id}': "
                        f"{lesson.objectives[number - 1].en!r}",
                    )
                )
    if lesson is None or not lesson.incomplete_translation:
        for path in _missing_translations(quiz):
            errors.append(
                ContentError(
                    loaded.doc.location(path), f"missing Chinese translation ('zh') at {'.'.join(map(str, path))}"
                )
            )
    for index, question in enumerate(quiz.questions):
        if isinstance(question, GeneratedQuestion):
            errors += static_generated_problems(loaded, index, question)
            continue
        item = hand_written_item(question, random.Random(0))
        for problem in item_problems(item) + math_problems(item):
            errors.append(ContentError(loaded.where(index), f"question '{question.id}': {problem}"))
    return errors


def verify_quizzes(root: str | Path, *, oracles: bool = False, progress: bool = False) -> list[str]:
    """All quiz problems of the course at `root`, as `file:line:column: message` lines (empty: all good).

    With `oracles`, every generated question's key is also proven against its independent
    oracle over the whole parameter space (coursegen.quiz.oracle_check). With `progress`,
    one line per quiz (and per generated question's oracle check) goes to stderr, or a tqdm
    bar on a terminal."""
    try:
        quizzes = course_quizzes(root)
    except ContentErrors as exc:
        return [str(e) for e in exc.errors]
    except ContentError as exc:
        return [str(exc)]
    report = _Reporter(len(quizzes)) if progress else None
    errors: list[ContentError] = []
    for loaded in quizzes:
        if report:
            report.line(f"quiz {loaded.quiz.id}: quality gate over {len(loaded.quiz.questions)} question(s)")
        found = verify_quiz(loaded)
        if oracles:
            from .oracle_check import check_quiz

            found += check_quiz(loaded, report.line if report else None)
        if report:
            report.quiz_done(loaded.quiz.id, len(found))
        errors += found
    if report:
        report.close()
    return [str(e) for e in sorted(errors, key=lambda e: (e.location, e.message))]


class _Reporter:
    """Per-quiz progress on stderr: a tqdm bar on a terminal, plain lines otherwise."""

    def __init__(self, total: int) -> None:
        import sys

        self.stream = sys.stderr
        self.bar = None
        if self.stream.isatty():
            from tqdm import tqdm

            self.bar = tqdm(total=total, desc="quizzes", unit="quiz", file=self.stream, leave=False)

    def line(self, text: str) -> None:
        if self.bar is not None:
            self.bar.set_postfix_str(text.strip(), refresh=True)
        else:
            print(text, file=self.stream, flush=True)

    def quiz_done(self, quiz_id: str, problems: int) -> None:
        verdict = "ok" if not problems else f"{problems} problem(s)"
        if self.bar is not None:
            self.bar.update(1)
            self.bar.write(f"quiz {quiz_id}: {verdict}", file=self.stream)
        else:
            print(f"quiz {quiz_id}: {verdict}", file=self.stream, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
