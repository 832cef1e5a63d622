"""Read YAML 1.2 with positions, and validate it against a pydantic model.

PyYAML is YAML 1.1 (`no` becomes False, duplicate keys pass silently) and keeps no
line numbers, so content is read with ruamel.yaml: YAML 1.2, duplicate keys are
errors, and every mapping key and sequence item keeps its line and column. Those
positions are kept in a side table keyed by the path to the value, so a pydantic
error at ``("sections", 2, "title", "zh")`` is reported at the line where that
value (or the nearest enclosing one that exists) was written.
"""

from __future__ import annotations

import difflib
import hashlib
import types
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, TypeVar, Union, get_args, get_origin

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails
from ruamel.yaml import YAML
from ruamel.yaml import __version__ as ruamel_version
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.scalarstring import FoldedScalarString, LiteralScalarString
from ruamel.yaml.error import MarkedYAMLError


from .errors import ContentError, ContentErrors, Location

CACHE_DIR_NAME = ".coursegen-cache"  # the course's cache folder (coursegen.loader): parsed YAML, outputs, figures

Path_ = tuple[str | int, ...]
M = TypeVar("M", bound=BaseModel)


class YamlDocument:
    """Plain data from one YAML file plus the position of every value in it.

    `positions` maps a path to where its key (or sequence item) was written;
    `scalars` maps the path of every string value to where its text starts and
    how it was written, so `text_location` can point inside a multi-line string.
    """

    def __init__(
        self,
        file: str,
        data: Any,
        positions: dict[Path_, tuple[int, int]],
        scalars: dict[Path_, "ScalarPlace"] | None = None,
    ):
        self.file = file
        self.data = data
        self.positions = positions
        self.scalars = scalars or {}

    def text_location(self, path: Path_, offset: int) -> Location:
        """Where character `offset` of the string at `path` was written (best effort:
        exact for plain, quoted and literal `|` strings; line-accurate for folded `>`)."""
        place = self.scalars.get(tuple(path))
        if place is None:
            return self.location(path)
        text = place.text[:offset]
        line_index = text.count("\n")
        column_in_line = len(text) - (text.rfind("\n") + 1)
        if place.style in ("|", ">"):
            return Location(self.file, place.line + 1 + line_index, place.indent + column_in_line + 1)
        quote = 1 if place.style in ("'", '"') else 0
        if line_index == 0:
            return Location(self.file, place.line, place.column + quote + column_in_line)
        return Location(self.file, place.line + line_index, 1)

    def location(self, path: Path_) -> Location:
        """Where the value at `path` was written, or its nearest existing parent."""
        path = tuple(path)
        while path and path not in self.positions:
            path = path[:-1]
        line, column = self.positions.get(path, (1, 1))
        return Location(self.file, line, column)


@dataclass(frozen=True)
class ScalarPlace:
    """Where a string value starts: 1-based line/column of the value (for `|`/`>`
    strings, the line of the indicator), its style and, for block strings, the
    indentation of its content lines."""

    text: str
    line: int
    column: int
    style: str  # "", "'", '"', "|" or ">"
    indent: int = 0


def _style(value: Any, source_lines: list[str], line0: int, col0: int) -> tuple[str, int]:
    if isinstance(value, LiteralScalarString) or isinstance(value, FoldedScalarString):
        style = "|" if isinstance(value, LiteralScalarString) else ">"
        indent = 0
        for raw in source_lines[line0 + 1 :]:
            if raw.strip():
                indent = len(raw) - len(raw.lstrip(" "))
                break
        return style, indent
    first = source_lines[line0][col0 : col0 + 1] if line0 < len(source_lines) else ""
    return (first if first in ("'", '"') else ""), 0


def _plain(
    node: Any,
    path: Path_,
    positions: dict[Path_, tuple[int, int]],
    scalars: dict[Path_, ScalarPlace] | None = None,
    source_lines: list[str] | None = None,
) -> Any:
    scalars = {} if scalars is None else scalars
    source_lines = source_lines or []

    def remember(child_path: Path_, value: Any, where: tuple[int, int] | None) -> None:
        if isinstance(value, str) and where is not None:
            style, indent = _style(value, source_lines, where[0], where[1])
            scalars[child_path] = ScalarPlace(str(value), where[0] + 1, where[1] + 1, style, indent)

    if isinstance(node, CommentedMap):
        out = {}
        for key, value in node.items():
            try:
                line, col = node.lc.key(key)
            except (KeyError, TypeError):
                line, col = node.lc.line, node.lc.col
            try:
                value_at = tuple(node.lc.value(key))
            except (KeyError, TypeError):
                value_at = None
            positions[path + (str(key),)] = (line + 1, col + 1)
            remember(path + (str(key),), value, value_at)
            out[str(key)] = _plain(value, path + (str(key),), positions, scalars, source_lines)
        return out
    if isinstance(node, CommentedSeq):
        out_list = []
        for index, value in enumerate(node):
            try:
                line, col = node.lc.item(index)
            except (KeyError, TypeError, IndexError):
                line, col = node.lc.line, node.lc.col
            positions[path + (index,)] = (line + 1, col + 1)
            remember(path + (index,), value, (line, col))
            out_list.append(_plain(value, path + (index,), positions, scalars, source_lines))
        return out_list
    if isinstance(node, str):
        return str(node)  # drop ruamel's scalar-string subclasses
    return node


def read_yaml(file: str | Path, display_name: str | None = None, *, cache_dir: Path | None = None) -> YamlDocument:
    """Parse one YAML file; syntax errors and duplicate keys become ContentError.

    ruamel's round-trip parser is pure Python and slow on long lessons; with `cache_dir`
    the parsed result (plain data and positions, as JSON) is a cached value of kind "yaml"
    (coursegen.cache: `cache_dir/yaml/<hash of the text>.json`), reused while the file is unchanged."""
    file = Path(file)
    name = display_name or str(file)
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ContentError(Location(name), "file not found") from None
    except UnicodeDecodeError as exc:
        raise ContentError(Location(name), f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    if cache_dir is None:
        return _parse(text, name)
    from .cache import Cache

    store = Cache(cache_dir)
    digest = hashlib.sha256(f"{_CACHE_FORMAT}\0{ruamel_version}\0{text}".encode()).hexdigest()
    cached = _from_json(store.get("yaml", digest), name)
    if cached is not None:
        return cached
    document = _parse(text, name)
    store.put("yaml", digest, _to_json(document))
    return document


_CACHE_FORMAT = "1"

# Common YAML slips in prose, and what to do about them.
_YAML_HINTS = {
    "mapping values are not allowed here": "a value containing ': ' must be quoted or written as a '|' block",
    "found character '\\t'": "indent with spaces, not tabs",
    "found undefined alias": "a value starting with '*' must be quoted",
}


def _from_json(raw: Any, name: str) -> YamlDocument | None:
    if not isinstance(raw, dict) or not {"data", "positions", "scalars"} <= set(raw):
        return None
    positions = {tuple(p): (line, column) for p, line, column in raw["positions"]}
    scalars = {tuple(p): ScalarPlace(*place) for p, place in raw["scalars"]}
    return YamlDocument(name, raw["data"], positions, scalars)


def _to_json(document: YamlDocument) -> dict[str, Any]:
    return {
        "data": document.data,
        "positions": [[list(p), line, column] for p, (line, column) in document.positions.items()],
        "scalars": [
            [list(p), [place.text, place.line, place.column, place.style, place.indent]]
            for p, place in document.scalars.items()
        ],
    }


def _parse(text: str, name: str) -> YamlDocument:
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
        for symptom, hint in _YAML_HINTS.items():
            if symptom in problem:
                problem += f" ({hint})"
        raise ContentError(where, f"invalid YAML: {problem}") from None
    positions: dict[Path_, tuple[int, int]] = {(): (1, 1)}
    scalars: dict[Path_, ScalarPlace] = {}
    data = _plain(node, (), positions, scalars, text.splitlines())
    return YamlDocument(name, data, positions, scalars)


def validate(doc: YamlDocument, model: type[M], context: dict | None = None) -> M:
    """Validate `doc.data` against `model`; raise ContentErrors with file:line:column."""
    try:
        return model.model_validate(doc.data, context=context)
    except ValidationError as exc:
        errors = []
        for error in exc.errors(include_url=False):
            loc = _data_path(doc.data, error["loc"])
            at_parent = error["type"] == "missing"
            location = doc.location(loc[:-1] if at_parent else loc)
            if error["type"] == "union_tag_invalid":
                location = doc.location(loc + ("kind",))
            errors.append(ContentError(location, _describe(error, loc, model, doc.data)))
        raise ContentErrors(errors) from None


def _data_path(data: Any, loc: tuple) -> Path_:
    """pydantic's error loc with the synthetic parts (discriminator tags) removed.

    For a discriminated union pydantic inserts the tag after the list index:
    ``("sections", 0, "blocks", 3, "code", "id")`` means the `id` of block 3, whose
    kind is "code". A tag equals the item's `kind`, which is how it is recognised.
    """
    path: list[str | int] = []
    node = data
    parts = list(loc)
    index = 0
    while index < len(parts):
        part = parts[index]
        if isinstance(node, list) and isinstance(part, int):
            path.append(part)
            node = node[part] if part < len(node) else None
            if isinstance(node, dict) and index + 1 < len(parts) and parts[index + 1] == node.get("kind"):
                index += 1  # skip the discriminator tag
        elif isinstance(node, dict) and isinstance(part, str):
            path.append(part)
            node = node.get(part)
        else:
            path.append(part)
            node = None
        index += 1
    return tuple(path)


def _describe(error: ErrorDetails, loc: Path_, model: type[BaseModel], data: Any) -> str:
    kind = error["type"]
    ctx = error.get("ctx") or {}
    field = str(loc[-1]) if loc else "document"
    dotted = ".".join(str(p) for p in loc) or "document"
    if kind == "missing":
        return f"missing required field '{field}'"
    if kind == "extra_forbidden":
        expected = _fields_at(model, data, loc[:-1])
        close = difflib.get_close_matches(field, expected, n=1)
        hint = f"did you mean '{close[0]}'? " if close else ""
        listing = f"(expected one of: {', '.join(expected)})" if expected else ""
        return f"unknown field '{field}'" + (f": {hint}{listing}" if hint else f" {listing}").rstrip()
    if kind == "union_tag_invalid":
        return (
            f"unknown {_tag_name(ctx)} '{ctx.get('tag')}' (expected one of: "
            f"{ctx.get('expected_tags', '').replace(chr(39), '')})"
        )
    if kind == "union_tag_not_found":
        return f"missing required field {ctx.get('discriminator', 'kind')} (it says what kind of item this is)"
    if kind == "string_pattern_mismatch" and "a-z0-9" in str(ctx.get("pattern", "")):
        return (
            f"{dotted}: '{error.get('input')}' is not a valid id "
            f"(lowercase letters and digits joined by hyphens, e.g. 'token-ids')"
        )
    if kind in (
        "string_type",
        "int_type",
        "float_type",
        "bool_type",
        "list_type",
        "dict_type",
        "model_type",
        "literal_error",
        "too_short",
        "string_too_short",
        "string_too_long",
        "int_parsing",
        "float_parsing",
        "bool_parsing",
    ):
        return f"{dotted}: {error['msg']}, got {_show(error.get('input'))}"
    return f"{dotted}: {error['msg']}"


def _tag_name(ctx: dict) -> str:
    return "block kind" if ctx.get("discriminator") == "'kind'" else f"{ctx.get('discriminator', 'tag')}"


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _fields_at(model: Any, data: Any, path: Path_) -> list[str]:
    """The field names of the model that validates the mapping at `path` (best effort)."""
    node_type: Any = model
    node = data
    for part in path:
        node_type = _unwrap(node_type, node)
        if isinstance(part, int):
            args = [a for a in get_args(node_type) if a is not type(None)]
            node_type = args[0] if args else None
            node = node[part] if isinstance(node, list) and part < len(node) else None
        elif isinstance(node_type, type) and issubclass(node_type, BaseModel):
            field_info = node_type.model_fields.get(part)
            node_type = field_info.annotation if field_info else None
            node = node.get(part) if isinstance(node, dict) else None
        else:
            return []
    node_type = _unwrap(node_type, node)
    if isinstance(node_type, type) and issubclass(node_type, BaseModel):
        return list(node_type.model_fields)
    return []


def _unwrap(node_type: Any, node: Any) -> Any:
    """Strip Optional/Annotated; pick the union member whose `kind` matches the data."""
    for _ in range(5):
        origin = get_origin(node_type)
        if origin is Annotated:
            node_type = get_args(node_type)[0]
        elif origin in (Union, types.UnionType):
            members = [a for a in get_args(node_type) if a is not type(None)]
            chosen = members[0] if len(members) == 1 else None
            for member in members:
                kind_field = getattr(member, "model_fields", {}).get("kind")
                if kind_field and isinstance(node, dict) and node.get("kind") in get_args(kind_field.annotation):
                    chosen = member
            if chosen is None:
                return None
            node_type = chosen
        else:
            return node_type
    return node_type
