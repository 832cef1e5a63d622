"""What every quiz question is made of, apart from the kinds that build on it: the tolerance of a
numeric answer and the fields every question has. The question kinds (coursegen.quiz.kinds) and
the quiz schema (coursegen.quiz.schema, which asks the kinds' registry) both import it; it imports
neither, so the kinds and the schema do not import each other."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, model_validator

from coursegen.schema import Id, Strict, Text


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
    """What every question has. A hand-written question's model is its kind's (coursegen.quiz.kinds:
    `type:` names the kind); a generated one is a GeneratedQuestion."""

    type: str
    id: Id
    text: Text  # Markdown with $math$; generated questions use {{param}} placeholders
    explanation: Text  # shown after checking, whatever the answer
    objectives: list[Annotated[int, Field(ge=1)]] = Field(min_length=1)  # 1-based, into the lesson's objectives
    points: int = Field(default=1, ge=1)
