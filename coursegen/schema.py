"""The content schema: what a course file and a lesson file may contain.

These pydantic models are the single definition of the YAML format. Unknown keys are
errors (`extra="forbid"`), so a misspelt key never passes silently. `coursegen schema`
exports them as JSON Schema for editors; `docs/authoring.md` documents them with a
complete example. Cross-file rules (lesson ids match course.yaml, exercise names exist
in the registry, internal links resolve, math is valid, translations are complete)
are checked by the loader after this structural validation.
"""

from __future__ import annotations

import datetime
from typing import Annotated, Any, Literal, Union

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator

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
    """How a block appears in the lesson's slide deck (coursegen.slides); every key is optional
    (docs/authoring.md, "Slides").

    `new`: this block starts a new slide (`title` gives that slide its own title, else the
    section's). `show`: `auto` (default: the block whole; a block too long for one slide goes on
    on the next, marked "(continued)"), `full` (the same), `notes` (speaker notes only) or `omit`
    (not in the deck). `text`: the slide's own, shorter wording of a text or note block (the
    prose then goes whole into the speaker notes): the only way a paragraph is shortened.
    `incremental`: the block's list items, paragraphs or a code example's output appear one key
    press at a time. `notes`: extra speaker notes (Markdown). `columns`: put this block beside
    the previous one (two columns: a figure and its bullets). Code only: `lines` ("5-12" or
    "1-3,8-10") the lines the slide shows (the whole code goes into the notes), `highlight`
    (["1-4", "5-9"]) the lines highlighted one key press after another."""

    new: bool = False
    title: Text | None = None
    show: Literal["auto", "full", "notes", "omit"] = "auto"
    text: Text | None = None
    incremental: bool = False
    notes: Text | None = None
    columns: bool = False
    lines: str | None = Field(default=None, pattern=r"^\s*\d+(\s*-\s*\d+)?(\s*,\s*\d+(\s*-\s*\d+)?)*\s*$")
    highlight: list[Annotated[str, Field(pattern=r"^\s*\d+(\s*-\s*\d+)?(\s*,\s*\d+(\s*-\s*\d+)?)*\s*$")]] | None = None

    @model_validator(mode="after")
    def _title_needs_new(self) -> "SlideOptions":
        if self.title is not None and not self.new:
            raise ValueError("'title' names the slide this block starts: add 'new: true' (or remove 'title')")
        if self.show in ("notes", "omit") and (self.new or self.incremental or self.text or self.columns):
            raise ValueError(
                f"a block with 'show: {self.show}' is not on a slide: 'new', 'incremental', 'text' and 'columns' do nothing"
            )
        if self.columns and self.new:
            raise ValueError(
                "'columns' puts the block beside the previous one on its slide: it cannot also start a new slide"
            )
        return self


def line_numbers(spec: str) -> list[int]:
    """ "1-3,8" -> [1, 2, 3, 8] (1-based, in order, no repeats)."""
    numbers: list[int] = []
    for part in spec.split(","):
        first, _, last = part.strip().partition("-")
        for number in range(int(first), int(last or first) + 1):
            if number not in numbers:
                numbers.append(number)
    return numbers


def _check_slide_options(block: Any, kind: str) -> None:
    options = getattr(block, "slide", None)
    if options is None:
        return
    if kind != "code" and (options.lines or options.highlight):
        raise ValueError("slide 'lines' and 'highlight' choose lines of a code example: this block has no code")
    if kind == "code" and options.text:
        raise ValueError("slide 'text' rewords a text, note or figure caption for the slide: a code block has none")
    if kind == "code":
        count = block.code.rstrip("\n").count("\n") + 1
        for spec in [options.lines or ""] + list(options.highlight or []):
            for number in line_numbers(spec) if spec.strip() else []:
                if not 1 <= number <= count:
                    raise ValueError(f"slide line {number} is not in the code (it has {count} lines)")


class TextBlock(Strict):
    """Markdown prose with `$inline$` and `$$display$$` math."""

    kind: Literal["text"]
    en: str = Field(min_length=1)
    zh: str | None = Field(default=None, min_length=1)
    slide: SlideOptions | None = None  # how it appears in the slide deck

    @model_validator(mode="after")
    def _slide_fits_block(self) -> "TextBlock":
        _check_slide_options(self, "text")
        return self

    def get(self, lang: Language) -> str:
        return getattr(self, lang) or self.en


class NoteBlock(Strict):
    """A call-out box: a tip, a warning or an aside (Markdown)."""

    kind: Literal["note"]
    style: Literal["tip", "warning", "aside"] = "aside"
    en: str = Field(min_length=1)
    zh: str | None = Field(default=None, min_length=1)
    slide: SlideOptions | None = None

    @model_validator(mode="after")
    def _slide_fits_block(self) -> "NoteBlock":
        _check_slide_options(self, "note")
        return self

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

    @model_validator(mode="after")
    def _slide_fits_block(self) -> "CodeBlock":
        _check_slide_options(self, "code")
        return self


class FigureBlock(Strict):
    """A figure drawn at build time by the course's `@figure` function of that name (content/plugins/)."""

    kind: Literal["figure"]
    id: Id
    figure: Identifier  # a kind registered with @figure by the course's plugins (checked by the loader)
    params: dict[str, Any] = Field(default_factory=dict)
    caption: Text
    alt: Text  # the accessible description of what the figure shows
    experiment: Id | None = None  # a lesson experiment whose results the figure is drawn from (`results=`)
    slide: SlideOptions | None = None

    @model_validator(mode="after")
    def _slide_fits_block(self) -> "FigureBlock":
        _check_slide_options(self, "figure")
        return self


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


class Experiment(Strict):
    """A run the build makes with the course's @experiment function `run` (coursegen.claims);
    its results are cached by content hash and checked by the lesson's claims."""

    id: Id
    run: Identifier
    params: dict[str, Any] = Field(default_factory=dict)


class Claim(Strict):
    """What an experiment shows, checked on its results by the course's @claim function `check`;
    the build fails at the claim when it does not hold, and the page shows it with its per-seed evidence."""

    id: Id
    check: Identifier
    text: Text  # Markdown: the statement, as the page shows it
    params: dict[str, Any] = Field(default_factory=dict)
    experiment: Id | None = None  # which of the lesson's experiments (default: its only one)
    section: Id | None = None  # the section the page shows it in (default: the last one)
    # where the lecture deck shows its results slide: after its section (the main results), or
    # among the backup slides after the closing summary (the runs a question may call up)
    deck: Literal["section", "backup"] = "section"


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
    # where the deck asks the quiz's in-class questions: each after the section it tests, or all at the end
    in_class_questions: Literal["after-sections", "end"] = "after-sections"
    experiments: list[Experiment] = Field(default_factory=list)  # runs whose results the claims check
    claims: list[Claim] = Field(default_factory=list)  # executable statements about those runs


class QuizGate(Strict):
    """The course's minimums for every quiz (coursegen.quiz.gate). The engine's defaults are neutral
    (a quiz has a question); a course sets its own bar (e.g. {min_questions: 8, min_generated: 3})."""

    min_questions: int = Field(default=1, ge=1)  # questions per quiz
    min_generated: int = Field(default=0, ge=0)  # of which generated (`generate:`)


def _requirement(text: str) -> str:
    """A pip requirement string ("torch>=2.2", "numpy"), checked with packaging's parser."""
    from packaging.requirements import InvalidRequirement, Requirement

    try:
        Requirement(text)
    except InvalidRequirement as exc:
        raise ValueError(f"not a pip requirement (e.g. 'torch>=2.2' or 'numpy'): {exc}") from None
    return text


PipRequirement = Annotated[str, AfterValidator(_requirement)]


class Submission(Strict):
    """How students hand in their work: the student guide and the site's exercises page say it.
    `route`: gradescope (upload the notebook to the course's Gradescope assignment), classroom
    (push to the GitHub Classroom repository), lms (upload the notebook where the course page
    says) or service (upload it on the page of the course's grading service at `url`, graded
    within seconds); `where` (optional): the instructor's own words, e.g. the course page's address."""

    route: Literal["gradescope", "classroom", "lms", "service"] = "lms"
    where: Text | None = None
    # route service: the address of the course's grading service (`coursegen service start`, docs/service.md)
    url: str | None = None

    @model_validator(mode="after")
    def _url_with_service(self) -> "Submission":
        if self.route == "service" and not (self.url or "").startswith(("https://", "http://")):
            raise ValueError(
                "route 'service' needs 'url': the grading service's address, e.g. https://grader.example.edu/"
            )
        if self.route != "service" and self.url is not None:
            raise ValueError("'url' is the grading service's address: only with route 'service'")
        return self


class LateSpec(Strict):
    """An assignment's late policy (grader/reporting/lateness.py): a grace period, a penalty in percent
    of the raw score per day or part of a day late, the last day after which work scores 0, and a
    CSV of per-student extensions (`student,days`, a path relative to the course folder)."""

    grace_minutes: float = Field(default=0, ge=0)
    per_day: float = Field(default=0, ge=0, le=100)
    last_day: int | None = Field(default=None, ge=0)
    extensions: str | None = None


class CourseAssignment(Strict):
    """An assignment: a named set of exercises graded together, out of one maximum for every
    student (grader/reporting/assignments.py). `exercises` and `lessons` (all of a lesson's exercises) may
    be combined; `points` overrides an exercise's total (its checks' points are scaled to it).
    Cross-file rules (names exist, no exercise in two assignments unless `shared: true` on the
    later one, ids unique) are checked by the loader (coursegen/assignments.py)."""

    id: Id
    title: Text
    exercises: list[Identifier] = Field(default_factory=list)
    lessons: list[Id] = Field(default_factory=list)
    points: dict[Identifier, Annotated[float, Field(gt=0)]] = Field(default_factory=dict)
    due: datetime.datetime | datetime.date | None = None
    late: LateSpec | None = None  # needs `due:`
    shared: bool = False  # may repeat exercises of an earlier assignment (a review, an exam)


class CourseLimits(Strict):
    """Limits for student code (grader.course_limits; the sandbox's defaults where not set)."""

    call_seconds: float | None = Field(default=None, gt=0, le=600)  # one call of a student's function
    import_seconds: float | None = Field(default=None, gt=0, le=600)  # running the submission's source
    total_seconds: float | None = Field(default=None, gt=0, le=3600)  # all calls of one submission
    memory_mb: int | None = Field(default=None, ge=64, le=65536)  # memory a child may add


class Course(Strict):
    id: Id
    title: Text
    description: Text
    languages: list[Language] = Field(default_factory=lambda: list(LANGUAGES), min_length=1)
    lessons: list[Id] = Field(min_length=1)  # lesson ids, in teaching order; file content/lessons/<id>.yaml
    search_hint: Text | None = None  # the search page's prompt; default coursegen.ui_strings.UI[lang]["search_hint"]
    quiz_gate: QuizGate = Field(default_factory=QuizGate)
    # what is graded together (coursegen grade --assignment ID); default: one per lesson with exercises
    assignments: list[CourseAssignment] | None = None
    # what the course's code needs besides the engine (pip requirement strings, e.g. ["torch>=2.2"]):
    # the notebooks, self-checks, exports, student guide and the grader's warm worker follow it
    requires: list[PipRequirement] = Field(default_factory=list)
    submission: Submission = Field(default_factory=Submission)
    limits: CourseLimits | None = None  # limits for student code in every check (grader.course_limits)
