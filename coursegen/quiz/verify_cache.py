"""`coursegen verify`'s quiz proofs through the proof cache (grader/verifying/proof_cache.py).

Two kinds of proof per quiz:
    quiz-gate     the quality gate of one quiz (coursegen.quiz.gate.verify_quiz: answers compute,
                  no distractor equals its answer, enough variants, ...);
    quiz-oracle   one generated question's key against its independent oracle over its whole
                  parameter space (coursegen.quiz.oracle_check).
Their keys, read from the files without importing anything: the course's plugin modules
(content/plugins/, every file) and the course files those import, exercises/registry.py, every
reference module (solutions/*.py), solutions/mistakes/__init__.py and content/course.yaml; a
gate also the quiz file and its lesson's file, an oracle proof the question's own YAML data.
The catalogued mistakes an answer function runs (`from_mistakes`, which puts their hints in
the variants) are recorded while the proof runs, with every course module it imports, and the
entry is reused only while those files are unchanged: editing one hint re-proves only the
quizzes whose answers use that module's mistakes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from grader.digests import digest_bytes, digest_files, file_digest, tree_files
from grader.verifying.proof_cache import ProofCache, _import_closure

from ..errors import ContentError, ContentErrors
from ..yamlio import read_yaml


def _plan(root: Path) -> list[dict[str, Any]] | None:
    """Per quiz of the course (in course order): lesson id, quiz id, files, raw questions.
    None when the files do not read as expected (the uncached run then reports why)."""
    try:
        course = read_yaml(root / "content" / "course.yaml").data
        plan = []
        for lesson_id in course["lessons"]:
            lesson_file = root / "content" / "lessons" / f"{lesson_id}.yaml"
            quiz_id = read_yaml(lesson_file).data.get("quiz")
            if quiz_id is None:
                continue
            quiz_file = root / "content" / "quizzes" / f"{quiz_id}.yaml"
            questions = read_yaml(quiz_file).data["questions"]
            if not isinstance(questions, list):
                return None
            plan.append(
                {"lesson": str(lesson_id), "quiz": str(quiz_id), "files": [quiz_file, lesson_file], "raw": questions}
            )
        return plan
    except (OSError, KeyError, TypeError, AttributeError, ContentError, ContentErrors):
        return None


def _static_digest(root: Path) -> str:
    plugins = tree_files(root / "content" / "plugins")
    imported = _import_closure({p.resolve() for p in plugins if p.suffix == ".py"}, root.resolve())
    return digest_bytes(
        digest_files(plugins, root),
        digest_files(sorted(imported), root.resolve()),
        digest_files([root / "exercises" / "registry.py", root / "exercises" / "__init__.py"], root),
        digest_files(sorted((root / "solutions").glob("*.py")), root),
        file_digest(root / "solutions" / "mistakes" / "__init__.py"),
        file_digest(root / "content" / "course.yaml"),
    )


def verify_quizzes_cached(root: str | Path, cache: ProofCache, *, progress: bool = False) -> list[str]:
    """Like coursegen.quiz.gate.verify_quizzes(root, oracles=True), re-proving only what changed."""
    from .gate import _Reporter, verify_quizzes

    root = Path(root).resolve()
    plan = _plan(root)
    if plan is None:
        return verify_quizzes(root, oracles=True, progress=progress)
    static = _static_digest(root)
    report = _Reporter(len(plan)) if progress else None
    todo: dict[str, dict[str, Any]] = {}
    for item in plan:
        item["gate_key"] = cache.key("quiz-gate", static, digest_files(item["files"], root))
        item["oracle_keys"] = {}
        missing = cache.get("quiz-gate", f"{item['quiz']}/gate", item["gate_key"], count=False) is None
        for position, raw in enumerate(item["raw"]):
            if isinstance(raw, dict) and "generate" in raw:
                qid = str(raw.get("id", position))
                key = cache.key("quiz-oracle", static, json.dumps(raw, sort_keys=True, default=str))
                item["oracle_keys"][qid] = key
                missing |= cache.get("quiz-oracle", f"{item['quiz']}/{qid}", key, count=False) is None
        if missing:
            todo[item["lesson"]] = item
    errors: list[ContentError] = []
    loaded_quizzes = {}
    if todo:
        from .load import course_quizzes

        try:
            loaded_quizzes = {q.lesson.id if q.lesson else q.quiz.lesson: q for q in course_quizzes(root, list(todo))}
        except ContentErrors as exc:
            return [str(e) for e in exc.errors]
        except ContentError as exc:
            return [str(exc)]
    for item in plan:
        found = _prove_quiz(root, cache, item, loaded_quizzes.get(item["lesson"]), report)
        errors += found
        if report:
            report.quiz_done(item["quiz"], len(found))
    if report:
        report.close()
    return [str(e) for e in sorted(errors, key=lambda e: (e.location, e.message))]


def _prove_quiz(root: Path, cache: ProofCache, item: dict, loaded, report) -> list[ContentError]:
    from .gate import verify_quiz
    from .oracle_check import check_one
    from .schema import GeneratedQuestion

    line = report.line if report else None
    errors: list[ContentError] = []
    if loaded is None:  # everything of this quiz is cached
        cache.get("quiz-gate", f"{item['quiz']}/gate", item["gate_key"])
        for qid, key in item["oracle_keys"].items():
            cache.get("quiz-oracle", f"{item['quiz']}/{qid}", key)
        if line:
            line(f"quiz {item['quiz']}: quality gate and {len(item['oracle_keys'])} oracle proof(s) reused")
        return errors

    def gate() -> tuple[Any, bool]:
        found = verify_quiz(loaded)
        errors.extend(found)
        return [], not found

    if line:
        line(f"quiz {item['quiz']}: quality gate over {len(loaded.quiz.questions)} question(s)")
    _, reused = cache.prove("quiz-gate", f"{item['quiz']}/gate", item["gate_key"], gate, record_under=root)
    if reused and line:
        line("  quality gate: reused (its inputs are unchanged)")
    for index, question in enumerate(loaded.quiz.questions):
        if not isinstance(question, GeneratedQuestion):
            continue
        key = item["oracle_keys"].get(question.id)
        if key is None:  # the YAML id and the model disagree: prove it, cache nothing
            errors.extend(check_one(loaded, index, question, line))
            continue

        def oracle(index: int = index, question: GeneratedQuestion = question) -> tuple[Any, bool]:
            found = check_one(loaded, index, question, line)
            errors.extend(found)
            return [], not found

        _, reused = cache.prove("quiz-oracle", f"{item['quiz']}/{question.id}", key, oracle, record_under=root)
        if reused and line:
            line(f"  {question.id}: reused (its inputs are unchanged)")
    return errors
