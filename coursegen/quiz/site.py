"""Quiz pages of the course site: _site/<lang>/quiz-<lesson-id>.html.

Each page shows the "practice" variant (a fixed seed, the same for everyone). Question
texts, options, feedback and explanations are rendered to HTML (MathML) at build time;
the answer key travels in the page as a JSON object inside a classic <script>, read by
templates/assets/quiz.js, so checking works from file:// with no server and no network.

Before writing, every quiz goes through the quality gate (coursegen.quiz.gate); any
problem fails the build. The gate and the practice variant run in a child process
(generated answers call the reference solutions, which import torch; the build process
never does) and are cached in .coursegen-cache/quiz/, keyed by the quiz and lesson files,
the quiz engine, the reference solutions, the mistake catalogue and the torch version
(in `env.globals["cache_dir"]` when the build sets it, as the notebooks writer does).
"""

from __future__ import annotations

import hashlib
import json
from importlib import metadata
from pathlib import Path
from typing import Any

from coursegen.errors import ContentError, ContentErrors, Location

from .child import variants_in_child
from .kinds import kind_of
from .text import html_mathml

UI = {
    "en": {
        "quiz": "Quiz",
        "check": "Check",
        "check_all": "Check all answers",
        "right": "Right.",
        "wrong": "Not right.",
        "partly": "Partly right.",
        "explanation": "Explanation",
        "score": "Score",
        "answer_label": "Your answer",
        "shape_placeholder": "e.g. [2, 3, 4]",
        "choose": "Choose…",
        "unreadable": "This answer could not be read.",
        "empty": "Answer first.",
        "practice": "Practice variant: the questions with numbers are the same for everyone here; "
        "your graded quiz may use other numbers.",
        "back": "Back to the lesson",
        "points": "pt",
        "question": "Question",
        "expected": "Expected",
    },
    "zh": {
        "quiz": "测验",
        "check": "检查",
        "check_all": "检查全部答案",
        "right": "正确。",
        "wrong": "不正确。",
        "partly": "部分正确。",
        "explanation": "解析",
        "score": "得分",
        "answer_label": "你的答案",
        "shape_placeholder": "例如 [2, 3, 4]",
        "choose": "请选择…",
        "unreadable": "无法识别这个答案。",
        "empty": "请先作答。",
        "practice": "练习版：这里带数字的题目对所有人相同；计分测验中的数字可能不同。",
        "back": "返回本课",
        "points": "分",
        "question": "第",
        "expected": "正确答案",
    },
}
CACHE_SOURCES = (
    "answers.py",
    "variants.py",
    "values.py",
    "gate.py",
    "schema.py",
    "question_model.py",
    "load.py",
    "child.py",
)


def _lesson_part(lesson) -> str:
    """What the quality gate and the practice variant read of the lesson (its id, quiz, title,
    objectives and translation setting): a prose edit elsewhere in the lesson leaves the quiz's
    cache entry valid. (The lesson file as a whole is validated by the build before this runs.)"""
    return json.dumps(
        lesson.model_dump(mode="json", include={"id", "quiz", "title", "objectives", "incomplete_translation"}),
        ensure_ascii=False,
        sort_keys=True,
    )


def _cache_key(root: Path, files: list[Path], lesson_part: str = "") -> str:
    digest = hashlib.sha256()
    digest.update(lesson_part.encode() + b"\0")
    here = Path(__file__).resolve().parent
    from coursegen.plugin_loading import plugin_files

    kinds = sorted((here / "kinds").glob("*.py"))  # how each kind makes its items
    paths = [*files, *(here / name for name in CACHE_SOURCES), *kinds, *plugin_files(root)]
    solutions = root / "solutions"
    for folder in (solutions, solutions / "mistakes"):
        paths += sorted(folder.glob("*.py")) if folder.is_dir() else []
    for path in paths:
        digest.update(str(path.name).encode() + b"\0" + (path.read_bytes() if path.is_file() else b"") + b"\0")
    try:
        digest.update(metadata.version("torch").encode())
    except metadata.PackageNotFoundError:
        pass
    return digest.hexdigest()[:24]


def checked_practice_variants(loaded, lessons: list, cache_dir: Path | None = None) -> dict[str, dict]:
    """The practice variant of each lesson's quiz, after the quality gate passed.

    Cached by content hash; on a miss, the gate and the variants run in a child process
    (coursegen.quiz.child), so the build process itself never imports torch."""
    from coursegen.cache import Cache

    root = Path(loaded.root)
    store = Cache(cache_dir or root / ".coursegen-cache")
    variants: dict[str, dict] = {}
    missing: dict[str, str] = {}
    for lesson in lessons:
        files = [Path(loaded.quiz_files[lesson.id]), Path(loaded.course_file)]  # course.yaml: quiz_gate
        key = f"{lesson.quiz}-{_cache_key(root, files, _lesson_part(lesson))}"
        found = store.get("quiz", key)
        if isinstance(found, dict):
            variants[lesson.id] = found
        else:
            missing[lesson.id] = key
    if missing:
        from .variants import IN_CLASS, PRACTICE

        made = variants_in_child([PRACTICE, IN_CLASS], root, list(missing))
        results = made[PRACTICE]
        errors = [
            ContentError(Location(f, line, column), message)
            for result in results.values()
            for f, line, column, message in result["errors"]
        ]
        if errors:
            raise ContentErrors(errors)
        for lesson_id, key in missing.items():
            variants[lesson_id] = store.value("quiz", key, lambda: results[lesson_id]["variant"], reuse=False)
        _keep_in_class_variants(loaded, [lesson for lesson in lessons if lesson.id in missing], made[IN_CLASS], store)
    return variants


def _keep_in_class_variants(loaded, lessons: list, results: dict, store) -> None:
    """The decks' variants the same child made, kept where coursegen.slides.quiz looks for them: the
    decks of a cold build then start no child of their own."""
    shared = in_class_shared_key(loaded)
    for lesson in lessons:
        result = results.get(lesson.id)
        if result and not result["errors"] and isinstance(result["variant"], dict):
            store.value("slides", in_class_key(loaded, lesson, shared), lambda: result["variant"], reuse=False)


def in_class_key(loaded, lesson, shared: str | None = None) -> str:
    """The key of the lesson's in-class variant (the decks', coursegen.slides.quiz) in the cache
    (kind "slides"). `shared`: the part of the key every lesson has in common
    (`in_class_shared_key(loaded)`), computed once per build. Of the lesson, only what a variant
    reads (`_lesson_part`): a prose edit of the lesson rewrites its deck from the cached variant,
    without a child process."""
    shared = in_class_shared_key(loaded) if shared is None else shared
    digest = hashlib.sha256(shared.encode())
    digest.update(b"\0" + _lesson_part(lesson).encode())
    for path in (loaded.quiz_files[lesson.id], loaded.course_file):
        digest.update(b"\0" + Path(path).read_bytes())
    return f"quiz-{lesson.quiz}-{digest.hexdigest()[:24]}"


def in_class_shared_key(loaded) -> str:
    """The quiz pages' cache key without files of its own: the quiz engine, the course's plugins,
    the reference solutions and mistakes, the torch version."""
    return _cache_key(Path(loaded.root), [])


def _h(text: dict, lang: str, inline: bool = False) -> str:
    return html_mathml(text[lang], inline=inline)


def question_views(variant: dict, lang: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(what the template shows, the answer key quiz.js reads), per question: the common fields,
    then its kind's (`partial`: the template of the kind's view)."""
    views, keys = [], []
    for number, item in enumerate(variant["questions"], 1):
        kind = kind_of(item["type"])
        view = {
            "number": number,
            "id": item["id"],
            "type": item["type"],
            "points": item["points"],
            "text": _h(item["text"], lang),
            "explanation": _h(item["explanation"], lang),
            "partial": kind.page_partial,
        }
        key: dict[str, Any] = {"id": item["id"], "type": item["type"], "points": item["points"]}
        view_fields, key_fields = kind.page(item, lang)
        view.update(view_fields)
        key.update(key_fields)
        views.append(view)
        keys.append(key)
    return views, keys


def _script_json(data: Any) -> str:
    """JSON safe inside a <script> element (no `</script>`, no `<!--`)."""
    text = json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def quiz_lessons(loaded) -> list:
    """The lessons that have a quiz page: those with `quiz:` whose quiz file exists."""
    return [lesson for lesson in loaded.lessons if lesson.quiz is not None and lesson.id in loaded.quiz_files]


def write_lesson_quiz_pages(loaded, lesson, variant: dict, staging_dir: Path, env) -> None:
    """The quiz page of one lesson in every language, showing `variant` (its practice variant)."""
    from coursegen.pages import base_context, render_page

    staging_dir = Path(staging_dir)
    for lang in loaded.course.languages:
        page = f"quiz-{lesson.id}.html"
        title = f"{UI[lang]['quiz']}: {variant['title'][lang]}"
        views, keys = question_views(variant, lang)
        context = base_context(loaded, lang, page, title=title)
        render_page(
            env,
            "quiz.html",
            staging_dir / lang / page,
            **context,
            lesson=lesson,
            quiz_ui=UI[lang],
            questions=views,
            quiz_title=variant["title"][lang],
            quiz_data=_script_json({"lang": lang, "quiz": variant["quiz"], "ui": UI[lang], "questions": keys}),
        )
