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

from typing import Annotated, Any, Union

from pydantic import BeforeValidator, Field, field_validator, model_validator
from pydantic_core import PydanticCustomError

from coursegen.schema import Id, Identifier, Strict, Text

from .question_model import QuestionBase, Tolerance

MIN_VARIANTS = 20


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

    type: str  # a kind that can be generated (its `generated_answer`): single, numeric, shape
    generate: Generate
    tolerance: Tolerance | None = None  # numeric values (numeric and numeric `single`)
    decimals: int = Field(default=4, ge=0, le=10)
    feedback: Text  # shown for the right answer
    wrong_feedback: dict[str, Text] = Field(default_factory=dict)  # by distractor key; overrides a mistake's hint
    default_wrong_feedback: Text | None = None  # for any other wrong answer

    @field_validator("type")
    @classmethod
    def _a_kind_that_can_be_generated(cls, value: str) -> str:
        from .kinds import KINDS

        allowed = [kind.name for kind in KINDS if kind.generated_answer is not None]
        if value not in allowed:
            expected = " or ".join(", ".join(f"'{name}'" for name in allowed).rsplit(", ", 1))
            raise PydanticCustomError("literal_error", "Input should be {expected}", {"expected": expected})
        return value

    @model_validator(mode="after")
    def _tolerance_for_numbers(self) -> "GeneratedQuestion":
        from .kinds import kind_of

        if kind_of(self.type).generated_answer == "number" and self.tolerance is None:
            raise ValueError(f"a generated {self.type} question needs a 'tolerance'")
        return self


def _as_question(data: Any) -> Any:
    """A question's data validated against its model: GeneratedQuestion when it has `generate:`,
    else the model of the kind its `type:` names."""
    if isinstance(data, QuestionBase) or not isinstance(data, dict):
        return data
    if "generate" in data:
        return GeneratedQuestion.model_validate(data)
    from .kinds import find, names

    kind = find(data.get("type"))
    if kind is None:
        raise PydanticCustomError("question_type", "'type' must be one of {types}", {"types": ", ".join(names())})
    return kind.model.model_validate(data)


Question = Annotated[QuestionBase, BeforeValidator(_as_question)]


class Quiz(Strict):
    id: Id  # equals the file name and the lesson's `quiz:` value
    lesson: Id  # the lesson this quiz belongs to
    title: Text | None = None  # defaults to the lesson title
    questions: list[Question] = Field(min_length=1)
    # question ids are checked unique by coursegen.quiz.load (with the line of the repeat)
