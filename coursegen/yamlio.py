"""Read YAML 1.2 with positions, and validate it against a pydantic model.

PyYAML is YAML 1.1 (`no` becomes False, duplicate keys pass silently) and keeps no
line numbers, so content is read with ruamel.yaml: YAML 1.2, duplicate keys are
errors, and every mapping key and sequence item keeps its line and column. Those
positions are kept in a side table keyed by the path to the value, so a pydantic
error at ``("sections", 2, "title", "zh")`` is reported at the line where that
value (or the nearest enclosing one that exists) was written.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import MarkedYAMLError

from .errors import ContentError, ContentErrors, Location

Path_ = tuple[str | int, ...]
M = TypeVar("M", bound=BaseModel)


class YamlDocument:
    """Plain data from one YAML file plus the position of every value in it."""

    def __init__(self, file: str, data: Any, positions: dict[Path_, tuple[int, int]]):
        self.file = file
        self.data = data
        self.positions = positions

    def location(self, path: Path_) -> Location:
        """Where the value at `path` was written, or its nearest existing parent."""
        path = tuple(path)
        while path and path not in self.positions:
            path = path[:-1]
        line, column = self.positions.get(path, (1, 1))
        return Location(self.file, line, column)


def _plain(node: Any, path: Path_, positions: dict[Path_, tuple[int, int]]) -> Any:
    if isinstance(node, CommentedMap):
        out = {}
        for key, value in node.items():
            try:
                line, col = node.lc.key(key)
            except (KeyError, TypeError):
                line, col = node.lc.line, node.lc.col
            positions[path + (str(key),)] = (line + 1, col + 1)
            out[str(key)] = _plain(value, path + (str(key),), positions)
        return out
    if isinstance(node, CommentedSeq):
        out_list = []
        for index, value in enumerate(node):
            try:
                line, col = node.lc.item(index)
            except (KeyError, TypeError, IndexError):
                line, col = node.lc.line, node.lc.col
            positions[path + (index,)] = (line + 1, col + 1)
            out_list.append(_plain(value, path + (index,), positions))
        return out_list
    if isinstance(node, str):
        return str(node)  # drop ruamel's scalar-string subclasses
    return node


def read_yaml(file: str | Path, display_name: str | None = None) -> YamlDocument:
    """Parse one YAML file; syntax errors and duplicate keys become ContentError."""
    file = Path(file)
    name = display_name or str(file)
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ContentError(Location(name), "file not found") from None
    except UnicodeDecodeError as exc:
        raise ContentError(Location(name), f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    yaml = YAML(typ="rt")
    yaml.allow_duplicate_keys = False
    try:
        node = yaml.load(text)
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = Location(name, mark.line + 1, mark.column + 1) if mark else Location(name)
        problem = " ".join(str(p) for p in (exc.context, exc.problem) if p)
        if "duplicate key" in problem:
            problem = "duplicate key: " + problem.split('"')[1] if '"' in problem else problem
        raise ContentError(where, f"invalid YAML: {problem}") from None
    positions: dict[Path_, tuple[int, int]] = {(): (1, 1)}
    return YamlDocument(name, _plain(node, (), positions), positions)


def _describe(error: dict) -> str:
    kind = error["type"]
    loc = error["loc"]
    field = str(loc[-1]) if loc else "document"
    if kind == "missing":
        return f"missing required field '{field}'"
    if kind == "extra_forbidden":
        return f"unknown field '{field}'"
    return f"{'.'.join(str(p) for p in loc) or 'document'}: {error['msg']}"


def validate(doc: YamlDocument, model: type[M], context: dict | None = None) -> M:
    """Validate `doc.data` against `model`; raise ContentErrors with file:line:column."""
    try:
        return model.model_validate(doc.data, context=context)
    except ValidationError as exc:
        errors = []
        for error in exc.errors(include_url=False):
            # pydantic puts union/discriminator tags into loc; keep only real keys.
            loc = tuple(p for p in error["loc"] if isinstance(p, int) or p in _keys_at(doc.data, error["loc"]))
            location = doc.location(loc if error["type"] != "missing" else loc[:-1])
            errors.append(ContentError(location, _describe({**error, "loc": error["loc"] if error["type"] in ("missing", "extra_forbidden") else loc})))
        raise ContentErrors(errors) from None


def _keys_at(data: Any, loc: tuple) -> set[str]:
    """All mapping keys met along `loc` (used to drop pydantic's synthetic loc parts)."""
    keys: set[str] = set()
    node = data
    for part in loc:
        if isinstance(node, dict):
            keys.update(node)
            node = node.get(part) if isinstance(part, str) else None
        elif isinstance(node, list) and isinstance(part, int) and part < len(node):
            node = node[part]
        else:
            break
    return keys
