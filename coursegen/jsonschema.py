"""JSON Schema of the course and lesson files, for editors (`coursegen schema`).

The schema is generated from coursegen.schema (pydantic `model_json_schema`), so it
can never drift from what the loader accepts. One document holds both: the top level
describes a lesson file; `$defs/Course` describes course.yaml. With the YAML language
server, add to the top of a lesson file:

    # yaml-language-server: $schema=../../lesson.schema.json
"""

from __future__ import annotations

import inspect
import json
from pathlib import Path

from .schema import Course, Lesson


_JSON_TYPES = {bool: "boolean", int: "integer", float: "number", list: "array", str: "string"}


def figure_params_rules(root: str | Path) -> list[dict]:
    """One `if figure == kind then params must fit the drawing function` rule per figure kind of
    the course at `root`."""
    from .drawing import figures, param_type

    rules = []
    for kind, function in figures(root).items():
        properties = {}
        for name, parameter in inspect.signature(function).parameters.items():
            expected = param_type(parameter.default)
            default = list(parameter.default) if isinstance(parameter.default, tuple) else parameter.default
            properties[name] = {"type": _JSON_TYPES.get(expected, "string"), "default": default}
        rules.append(
            {
                "if": {"properties": {"figure": {"const": kind}}, "required": ["figure"]},
                "then": {
                    "properties": {
                        "params": {"type": "object", "properties": properties, "additionalProperties": False}
                    }
                },
            }
        )
    return rules


def lesson_json_schema(root: str | Path) -> dict:
    """The lesson file schema, with the figure kinds of the course at `root` and their parameters."""
    schema = Lesson.model_json_schema()
    figure_block = schema.get("$defs", {}).get("FigureBlock")
    if figure_block is not None:
        from .drawing import figures

        figure_block["properties"]["figure"] = {"enum": list(figures(root)), "title": "Figure", "type": "string"}
        figure_block["allOf"] = figure_params_rules(root)
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


def json_schema_text(root: str | Path, kind: str = "lesson") -> str:
    """The lesson or course schema (of the course at `root`: its figure kinds) as sorted, indented
    JSON text (deterministic)."""
    schema = lesson_json_schema(root) if kind == "lesson" else course_json_schema()
    return json.dumps(schema, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
