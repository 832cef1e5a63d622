"""The content schema: what a course file and a lesson file may contain.

These pydantic models are the single definition of the YAML format. Unknown keys are
errors (`extra="forbid"`), so a misspelt key never passes silently. `coursegen schema`
exports them as JSON Schema for editors; `docs/authoring.md` documents them with a
complete example. Cross-file rules (lesson ids match course.yaml, exercise names exist
in the registry, internal links resolve, math is valid, translations are complete)
are checked by the loader after this structural validation.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, model_validator

Language = Literal["en", "zh"]
LANGUAGES: tuple[Language, ...] = ("en", "zh")

# ids appear in file names and URLs: lowercase words joined by hyphens.
Id = Annotated[str, Field(pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$", max_length=64)]
# exercise names are Python identifiers from the exercise registry.
Identifier = Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Text(Strict):
    """A bilingual string. Markdown where the field says so; `zh` may be omitted only in
    a lesson with `incomplete_translation: true`."""

    en: str = Field(min_length=1)
    zh: str | None = Field(default=None, min_length=1)

    def get(self, lang: Language) -> str:
        return getattr(self, lang) or self.en


class SlideOptions(Strict):
    """How a block appears in the lesson's slide deck (coursegen.slides); every key is optional.

    `new`: this block starts a new slide (`title` gives that slide its own title, else the
    section's). `show`: `auto` (default: a short text stays, a long paragraph or list item shows
    its first sentence and goes whole into the speaker notes), `full` (all of it on the slide),
    `notes` (speaker notes only) or `omit` (not in the deck). `incremental`: the block's list
    items, paragraphs or a code example's output appear one key press at a time. `notes`: extra
    speaker notes (Markdown)."""

    new: bool = False
    title: Text | None = None
    show: Literal["auto", "full", "notes", "omit"] = "auto"
    incremental: bool = False
    notes: Text | None = None

    @model_validator(mode="after")
    def _title_needs_new(self) -> "SlideOptions":
        if self.title is not None and not self.new:
            raise ValueError("'title' names the slide this block starts: add 'new: true' (or remove 'title')")
        if self.show in ("notes", "omit") and (self.new or self.incremental):
            raise ValueError(f"a block with 'show: {self.show}' is not on a slide: 'new' and 'incremental' do nothing")
        return self


class TextBlock(Strict):
    """Markdown prose with `$inline$` and `$$display$$` math."""

    kind: Literal["text"]
    en: str = Field(min_length=1)
    zh: str | None = Field(default=None, min_length=1)
    slide: SlideOptions | None = None  # how it appears in the slide deck

    def get(self, lang: Language) -> str:
        return getattr(self, lang) or self.en


class NoteBlock(Strict):
    """A call-out box: a tip, a warning or an aside (Markdown)."""

    kind: Literal["note"]
    style: Literal["tip", "warning", "aside"] = "aside"
    en: str = Field(min_length=1)
    zh: str | None = Field(default=None, min_length=1)
    slide: SlideOptions | None = None

    def get(self, lang: Language) -> str:
        return getattr(self, lang) or self.en


class CodeBlock(Strict):
    """Python run at build time; its real output is shown under it. The code blocks of
    one lesson share a namespace, in order, like notebook cells."""

    kind: Literal["code"]
    id: Id
    code: str = Field(min_length=1)
    caption: Text | None = None
    show_output: bool = True
    slide: SlideOptions | None = None


class FigureBlock(Strict):
    """A figure drawn at build time by the course's `@figure` function of that name (content/plugins/)."""

    kind: Literal["figure"]
    id: Id
    figure: Identifier  # a kind registered with @figure by the course's plugins (checked by the loader)
    params: dict[str, Any] = Field(default_factory=dict)
    caption: Text
    alt: Text  # the accessible description of what the figure shows
    slide: SlideOptions | None = None


Block = Annotated[Union[TextBlock, NoteBlock, CodeBlock, FigureBlock], Field(discriminator="kind")]


class Section(Strict):
    id: Id
    title: Text
    blocks: list[Block] = Field(min_length=1)


class KeyTerm(Strict):
    id: Id
    term: Text
    definition: Text  # Markdown


class ExerciseRef(Strict):
    """An exercise of the lesson: a name from exercises/registry.py and its task statement."""

    name: Identifier
    statement: Text  # Markdown


class Lesson(Strict):
    id: Id
    title: Text
    summary: Text
    objectives: list[Text] = Field(min_length=1)
    sections: list[Section] = Field(min_length=1)
    key_terms: list[KeyTerm] = Field(default_factory=list)
    exercises: list[ExerciseRef] = Field(default_factory=list)
    quiz: Id | None = None  # a quiz file content/quizzes/<quiz>.yaml
    incomplete_translation: bool = False


class QuizGate(Strict):
    """The course's minimums for every quiz (coursegen.quiz.gate); the defaults are the engine's."""

    min_questions: int = Field(default=8, ge=1)  # questions per quiz
    min_generated: int = Field(default=3, ge=0)  # of which generated (`generate:`)


class Course(Strict):
    id: Id
    title: Text
    description: Text
    languages: list[Language] = Field(default_factory=lambda: list(LANGUAGES), min_length=1)
    lessons: list[Id] = Field(min_length=1)  # lesson ids, in teaching order; file content/lessons/<id>.yaml
    search_hint: Text | None = None  # the search page's prompt; default coursegen.site.UI[lang]["search_hint"]
    quiz_gate: QuizGate = Field(default_factory=QuizGate)
