"""The quiz schema: what content/quizzes/<quiz-id>.yaml may contain.

A quiz file holds the questions of one lesson. Each question is either written by
hand (its answer is in the YAML) or generated (`generate:` names an answer function
in the course's plugin modules (content/plugins/, @answer_function) and the ranges of its parameters; the answer is
computed by the reference solutions for each student's parameters).

Like coursegen/schema.py, unknown keys are errors and every value is validated here;
rules that need more than one question (objectives covered, answers that compute,
distractors distinct from the answer) are checked by coursegen/quiz/gate.py.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import Discriminator, Field, Tag, model_validator

from coursegen.schema import Id, Identifier, Strict, Text

QUESTION_TYPES = ("single", "multiple", "true_false", "numeric", "shape", "short", "matching")
GeneratedType = Literal["single", "numeric", "shape"]  # how a generated question is asked
MIN_VARIANTS = 20


class Tolerance(Strict):
    """How far a numeric response may be from the answer: `abs: 0.001` or `rel: 0.01`."""

    abs: float | None = Field(default=None, ge=0)
    rel: float | None = Field(default=None, ge=0)

    @model_validator(mode="after")
    def _exactly_one(self) -> "Tolerance":
        if (self.abs is None) == (self.rel is None):
            raise ValueError("give exactly one of 'abs' or 'rel'")
        return self

    def accepts(self, response: float, answer: float) -> bool:
        error = abs(response - answer)
        limit = self.abs if self.abs is not None else self._rel() * abs(answer)
        return error <= limit + 1e-12 * max(1.0, abs(answer))

    def describe(self) -> str:
        return f"±{self.abs:g}" if self.abs is not None else f"±{self._rel() * 100:g}%"

    def _rel(self) -> float:
        assert self.rel is not None, "_exactly_one: rel is given when abs is not"
        return self.rel


class QuestionBase(Strict):
    id: Id
    text: Text  # Markdown with $math$; generated questions use {{param}} placeholders
    explanation: Text  # shown after checking, whatever the answer
    objectives: list[Annotated[int, Field(ge=1)]] = Field(min_length=1)  # 1-based, into the lesson's objectives
    points: int = Field(default=1, ge=1)


class Choice(Strict):
    text: Text
    correct: bool = False
    feedback: Text  # shown when this option is chosen


class SingleQuestion(QuestionBase):
    """Single choice: exactly one option is correct."""

    type: Literal["single"]
    options: list[Choice] = Field(min_length=2)
    shuffle: bool = True

    @model_validator(mode="after")
    def _one_correct(self) -> "SingleQuestion":
        count = sum(o.correct for o in self.options)
        if count != 1:
            raise ValueError(f"a single-choice question needs exactly one option with 'correct: true', found {count}")
        return self


class MultipleQuestion(QuestionBase):
    """Multiple answers: one or more options are correct; all correct ones must be chosen."""

    type: Literal["multiple"]
    options: list[Choice] = Field(min_length=2)
    shuffle: bool = True

    @model_validator(mode="after")
    def _some_correct(self) -> "MultipleQuestion":
        if not any(o.correct for o in self.options):
            raise ValueError("a multiple-answer question needs at least one option with 'correct: true'")
        return self


class TrueFalseQuestion(QuestionBase):
    type: Literal["true_false"]
    answer: bool
    feedback_true: Text  # shown when the student answers "true"
    feedback_false: Text  # shown when the student answers "false"


class NumericWrong(Strict):
    """A typical wrong number and the feedback a student who gives it should read."""

    value: float
    feedback: Text


class NumericQuestion(QuestionBase):
    type: Literal["numeric"]
    answer: float
    tolerance: Tolerance
    decimals: int = Field(default=4, ge=0, le=10)  # how the answer is displayed
    feedback: Text
    wrong: list[NumericWrong] = Field(default_factory=list)


class ShapeWrong(Strict):
    value: list[Annotated[int, Field(ge=0)]] = Field(min_length=1)
    feedback: Text


class ShapeQuestion(QuestionBase):
    """A tensor shape, answered as `[4, 128, 32000]` (brackets, parentheses and `x` also accepted)."""

    type: Literal["shape"]
    answer: list[Annotated[int, Field(ge=0)]] = Field(min_length=1)
    feedback: Text
    wrong: list[ShapeWrong] = Field(default_factory=list)


class ShortWrong(Strict):
    value: str = Field(min_length=1)
    feedback: Text


class ShortQuestion(QuestionBase):
    """Short answer: any of `accepted` (compared after normalisation: case, width, spaces)."""

    type: Literal["short"]
    accepted: list[str] = Field(min_length=1)
    feedback: Text
    wrong: list[ShortWrong] = Field(default_factory=list)


class MatchPair(Strict):
    left: Text
    right: Text
    feedback: Text  # shown when this left item is matched wrongly


class MatchingQuestion(QuestionBase):
    type: Literal["matching"]
    pairs: list[MatchPair] = Field(min_length=2)
    feedback: Text  # shown when every pair is right


class ParamRange(Strict):
    """Integers lo..hi inclusive, every `step`."""

    range: tuple[int, int]
    step: int = Field(default=1, ge=1)

    @model_validator(mode="after")
    def _ordered(self) -> "ParamRange":
        if self.range[0] > self.range[1]:
            raise ValueError(
                f"range [{self.range[0]}, {self.range[1]}] is empty: the first bound must be <= the second"
            )
        return self

    def values(self) -> list[int]:
        return list(range(self.range[0], self.range[1] + 1, self.step))


class ParamChoices(Strict):
    choices: list[int | float | str] = Field(min_length=1)

    def values(self) -> list[Any]:
        return list(self.choices)


ParamSpec = Union[ParamRange, ParamChoices]


class Generate(Strict):
    """How a generated question draws its parameters and computes its answer."""

    answer: Identifier  # an @answer_function of the course's plugins
    params: dict[Identifier, ParamSpec] = Field(min_length=1)
    min_variants: int = Field(default=MIN_VARIANTS, ge=1)
    reason: Text | None = None  # required when min_variants < 20: why fewer variants are enough

    @model_validator(mode="after")
    def _reason_for_few_variants(self) -> "Generate":
        if self.min_variants < MIN_VARIANTS and self.reason is None:
            raise ValueError(f"min_variants below {MIN_VARIANTS} needs a 'reason'")
        return self


class GeneratedQuestion(QuestionBase):
    """A template: text with {{param}} placeholders, an answer computed per student.

    `type` says how it is asked: `numeric` (type the number), `shape` (type the shape)
    or `single` (choose among the answer and the generated distractors)."""

    type: GeneratedType
    generate: Generate
    tolerance: Tolerance | None = None  # numeric values (numeric and numeric `single`)
    decimals: int = Field(default=4, ge=0, le=10)
    feedback: Text  # shown for the right answer
    wrong_feedback: dict[str, Text] = Field(default_factory=dict)  # by distractor key; overrides a mistake's hint
    default_wrong_feedback: Text | None = None  # for any other wrong answer

    @model_validator(mode="after")
    def _tolerance_for_numbers(self) -> "GeneratedQuestion":
        if self.type == "numeric" and self.tolerance is None:
            raise ValueError("a generated numeric question needs a 'tolerance'")
        return self


def _question_kind(data: Any) -> str | None:
    if isinstance(data, dict):
        return "generated" if "generate" in data else data.get("type")
    return getattr(data, "type", None) if not isinstance(data, GeneratedQuestion) else "generated"


Question = Annotated[
    Union[
        Annotated[SingleQuestion, Tag("single")],
        Annotated[MultipleQuestion, Tag("multiple")],
        Annotated[TrueFalseQuestion, Tag("true_false")],
        Annotated[NumericQuestion, Tag("numeric")],
        Annotated[ShapeQuestion, Tag("shape")],
        Annotated[ShortQuestion, Tag("short")],
        Annotated[MatchingQuestion, Tag("matching")],
        Annotated[GeneratedQuestion, Tag("generated")],
    ],
    Discriminator(
        _question_kind,
        custom_error_type="question_type",
        custom_error_message=f"'type' must be one of {', '.join(QUESTION_TYPES)}",
    ),
]


class Quiz(Strict):
    id: Id  # equals the file name and the lesson's `quiz:` value
    lesson: Id  # the lesson this quiz belongs to
    title: Text | None = None  # defaults to the lesson title
    questions: list[Question] = Field(min_length=1)
    # question ids are checked unique by coursegen.quiz.load (with the line of the repeat)
