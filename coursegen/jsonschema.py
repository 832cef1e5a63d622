"""JSON Schema of the course and lesson files, for editors (`coursegen schema`).

The schema is generated from coursegen.schema (pydantic `model_json_schema`), so it
can never drift from what the loader accepts. One document holds both: the top level
describes a lesson file; `$defs/Course` describes course.yaml. With the YAML language
server, add to the top of a lesson file:

    # yaml-language-server: $schema=../../lesson.schema.json
"""
from __future__ import annotations

import json

from .schema import Course, Lesson


def lesson_json_schema() -> dict:
    schema = Lesson.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "coursegen lesson (content/lessons/<id>.yaml)"
    course = Course.model_json_schema()
    schema.setdefault("$defs", {}).update(course.pop("$defs", {}))
    schema["$defs"]["Course"] = course
    return schema


def course_json_schema() -> dict:
    schema = Course.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "coursegen course (content/course.yaml)"
    return schema


def json_schema_text(kind: str = "lesson") -> str:
    """The lesson or course schema as sorted, indented JSON text (deterministic)."""
    schema = lesson_json_schema() if kind == "lesson" else course_json_schema()
    return json.dumps(schema, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
