"""Functions a check passes to student code (`trapezoid(math.sin, 0, 1, 8)`), as data.

The child never receives a trusted object: it receives what it can rebuild itself.

    an importable function          {"function": {"import": "math:sin"}}
        a function, builtin or numpy ufunc of the standard library or of an installed
        distribution that the child can import too (its module and qualified name resolve to
        the very same object here)
    a lambda or a def               {"function": {"source": ..., "name", "free", "closure",
                                                  "globals", "defaults", "kwdefaults"}}
        defined in a check (or a public course module the child cannot import): its source,
        read with `ast` from its file and unparsed, plus the values it closes over and the
        globals it reads (modules by name, functions the same way, data as data), each
        encoded with the wire format (so a closure over a tensor sends the tensor's bytes)
    a module used as a global       {"module": "math"}
    functools.partial(f, *a, **k)   {"partial": [f, args, kwargs]}

Refused, with a sentence saying what to do (wire.Unencodable): the references and the
engine (`solutions`, `grader`, `coursegen`: a reference sent to student code would show it the
answer), bound methods, builtins of no importable module, closures over unsupported values.

`encode_callable` runs in the parent; `rebuild` runs in the child only (the parent never
rebuilds anything the child sent: a callable the child returns stays there as a RemoteObject).
A rebuilt function runs inside the child, so its time and output count against the
submission's own limits.
"""

from __future__ import annotations

import ast
import builtins as _builtins
import copy
import dis
import functools
import importlib
import linecache
import sys
import types
from pathlib import Path
from typing import Any, Callable

from .wire import ProtocolError, Unencodable

# Never sent, by name or by source: the course's references and the engine's own code.
TRUSTED_PACKAGES = ("solutions", "grader", "coursegen", "coursegen_cli", "cli", "content")
# A course's code loaded by path (grader.course.PACKAGE_PREFIX; tests/engine/test_course_value.py).
COURSE_PACKAGE_PREFIX = "_coursegen_course_"
_MAX_SOURCE = 200_000


# ---- the parent's side ------------------------------------------------------------------------


def encode_callable(value: Any, encode: Callable[[Any], Any]) -> dict | None:
    """The node for a function-like `value`, None when `value` is not one; Unencodable when it
    is one that cannot be sent (the reason says why and what to do)."""
    if type(value) is functools.partial:
        return {"partial": [encode(value.func), encode(list(value.args)), encode(dict(value.keywords))]}
    if isinstance(value, types.MethodType):
        raise Unencodable(
            "method",
            f"the bound method {_label(value)} carries its object, which stays in the grader",
            "pass a lambda that does the computation (lambda x: ...) or a plain function",
        )
    if isinstance(value, types.FunctionType):
        trusted = _trusted_origin(value)
        if trusted:
            raise Unencodable(
                "function",
                f"{_label(value)} is defined in {trusted}, which is never sent to student code "
                "(a reference there would show the answer)",
                "define the function in the check file (or in a public module of exercises/)",
            )
        name = importable_name(value)
        if name is not None:
            return {"function": {"import": name}}
        return {"function": _source_payload(value, encode)}
    if callable(value) and not isinstance(value, type):
        name = importable_name(value)
        if name is not None:
            return {"function": {"import": name}}
        if isinstance(value, (types.BuiltinFunctionType, types.BuiltinMethodType)):
            raise Unencodable(
                "builtin",
                f"{_label(value)} is a builtin that cannot be imported by name in student code",
                "wrap it in a lambda defined in the check",
            )
    return None


def _label(value: Any) -> str:
    return getattr(value, "__qualname__", None) or getattr(value, "__name__", None) or type(value).__name__


def _top(module: str | None) -> str:
    return (module or "").split(".")[0]


def _trusted_origin(fn: types.FunctionType) -> str | None:
    module = getattr(fn, "__module__", None) or ""
    if _top(module) in TRUSTED_PACKAGES or module.startswith(COURSE_PACKAGE_PREFIX):
        return f"the module {module}"  # the engine's, or a course's code loaded by path (grader.course)
    from grader.course import Course

    filename = Path(fn.__code__.co_filename)
    try:  # a file of the references of any course loaded in this process
        resolved = filename.resolve()
        inside = any(resolved.is_relative_to(root / "solutions") for root in Course.loaded_roots())
    except (OSError, ValueError):
        inside = False
    return f"{filename.name} of solutions/" if inside else None


def importable_name(value: Any) -> str | None:
    """'module:qualname' when the child can import the very same object by that name: a module
    of the standard library or of an installed distribution, never the course's or the engine's."""
    module = getattr(value, "__module__", None)
    qualname = getattr(value, "__qualname__", None) or getattr(value, "__name__", None)
    if type(module) is not str or type(qualname) is not str or "<" in qualname:
        return None
    if not _importable_module(module):
        return None
    target: Any = sys.modules.get(module)
    if target is None:
        return None
    for part in qualname.split("."):
        target = getattr(target, part, None)
    return f"{module}:{qualname}" if target is value else None


def _importable_module(module: str) -> bool:
    top = _top(module)
    if top in TRUSTED_PACKAGES or top in ("exercises",) or top.startswith("test_"):
        return False
    if top in sys.stdlib_module_names or top == "builtins":
        return True
    loaded = sys.modules.get(top)
    file = getattr(loaded, "__file__", None)
    if not file:
        return False
    return any(part in ("site-packages", "dist-packages") for part in Path(file).parts)


def module_node(module: types.ModuleType) -> dict:
    name = module.__name__
    if not _importable_module(name):
        raise Unencodable(
            "module",
            f"the module {name} cannot be imported in student code (only the standard library and "
            "installed distributions can)",
            "use a function of it in the check instead of the module, or pass the values it provides",
        )
    return {"module": name}


@functools.lru_cache(maxsize=256)
def _parsed(filename: str, size: int) -> ast.Module | None:
    text = "".join(linecache.getlines(filename))
    if not text or len(text) > 10 * _MAX_SOURCE:
        return None
    try:
        return ast.parse(text, filename=filename)
    except SyntaxError:
        return None


def _definition(fn: types.FunctionType) -> ast.AST | None:
    """The lambda or def node of `fn` in its file: the def of that name starting at its first line
    (decorators included), or the lambda on that line whose parameters and body span match."""
    code = fn.__code__
    linecache.checkcache(code.co_filename)
    tree = _parsed(code.co_filename, len(linecache.getlines(code.co_filename)))
    if tree is None:
        return None
    first = code.co_firstlineno
    if code.co_name == "<lambda>":
        positions = [  # the zero-width positions (RESUME) say nothing of where the lambda is
            (p[0], p[2])
            for p in code.co_positions()
            if p[0] is not None and p[2] is not None and p[3] is not None and (p[1], p[3]) > (p[0], p[2])
        ]
        lambdas = [n for n in ast.walk(tree) if isinstance(n, ast.Lambda) and n.lineno == first]
        if positions:
            start = min(positions)
            lambdas = [
                n
                for n in lambdas
                if (n.lineno, n.col_offset) <= start <= (n.end_lineno or n.lineno, n.end_col_offset or 0)
                and (n.body.lineno, n.body.col_offset) <= start
            ]
        # the innermost lambda that holds the code's first instruction
        lambdas.sort(key=lambda n: (n.lineno, n.col_offset), reverse=True)
        wanted = list(code.co_varnames[: code.co_argcount + code.co_kwonlyargcount])
        for node in lambdas:
            names = [a.arg for a in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs)]
            if names == wanted[: len(names)]:
                return node
        return None
    for candidate in ast.walk(tree):
        if isinstance(candidate, (ast.FunctionDef, ast.AsyncFunctionDef)) and candidate.name == code.co_name:
            begins = min([candidate.lineno, *(d.lineno for d in candidate.decorator_list)])
            if first in (begins, candidate.lineno):
                return candidate
    return None


def _source_payload(fn: types.FunctionType, encode: Callable[[Any], Any]) -> dict:
    code = fn.__code__
    node = _definition(fn)
    if node is None:
        raise Unencodable(
            "function",
            f"the source of {_label(fn)} cannot be read from {Path(code.co_filename).name} (a function "
            "made with exec or in an interactive session)",
            "define it with def or lambda in the check file",
        )
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        node = copy.copy(node)
        node.decorator_list = []  # the function itself, not what a decorator made of it
        kind = "def"
    else:
        kind = "lambda"
    source = ast.unparse(node)
    if len(source) > _MAX_SOURCE:
        raise Unencodable("function", f"the source of {_label(fn)} is too long to send")
    free = list(code.co_freevars)
    if "__class__" in free:
        raise Unencodable("function", f"{_label(fn)} uses super() or __class__", "pass a plain function")
    closure = []
    for name, cell in zip(free, fn.__closure__ or ()):
        try:
            value = cell.cell_contents
        except ValueError:
            raise Unencodable("function", f"{_label(fn)} closes over {name!r}, which has no value yet") from None
        closure.append(_encode_named(fn, f"the value of {name!r} it closes over", value, encode))
    global_nodes = []
    for name in sorted(_global_names(code)):
        if name not in fn.__globals__:
            continue  # a builtin, or a NameError in the child as it would be here
        value = fn.__globals__[name]
        if value is fn:
            continue  # a recursive def: rebuilt under its own name
        if isinstance(value, types.ModuleType):
            try:
                global_nodes.append([name, module_node(value)])
            except Unencodable as exc:
                raise Unencodable("function", f"{_label(fn)} uses the global {name!r}: {exc.reason}", exc.instead)
            continue
        global_nodes.append([name, _encode_named(fn, f"the global {name!r} it uses", value, encode)])
    return {
        "source": source,
        "kind": kind,
        "name": code.co_name,
        "free": free,
        "closure": closure,
        "globals": global_nodes,
        "defaults": None if fn.__defaults__ is None else encode(list(fn.__defaults__)),
        "kwdefaults": None if not fn.__kwdefaults__ else encode(dict(fn.__kwdefaults__)),
    }


def _encode_named(fn: types.FunctionType, what: str, value: Any, encode: Callable[[Any], Any]) -> Any:
    try:
        return encode(value)
    except Unencodable as exc:
        reason = exc.reason or f"a {exc.type_name} cannot be sent"
        raise Unencodable(
            exc.type_name,
            f"{_label(fn)} cannot be sent: {what} is not data ({reason})",
            exc.instead or "make it a value of a supported type, or compute it inside the function",
        ) from None


def _global_names(code: types.CodeType) -> set[str]:
    names = set()
    for instruction in dis.get_instructions(code):
        if instruction.opname in ("LOAD_GLOBAL", "LOAD_NAME") and isinstance(instruction.argval, str):
            names.add(instruction.argval)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _global_names(const)
    return names


# ---- the child's side ---------------------------------------------------------------------------


def rebuild(tag: str, payload: Any, decode: Callable[[Any], Any]) -> Any:
    """Rebuild a function, module or partial the parent sent (in the child only)."""
    if tag == "module":
        if type(payload) is not str:
            raise ProtocolError("bad module")
        return importlib.import_module(payload)
    if tag == "partial":
        if type(payload) is not list or len(payload) != 3:
            raise ProtocolError("bad partial")
        func, args, kwargs = (decode(p) for p in payload)
        return functools.partial(func, *args, **{str(k): v for k, v in kwargs.items()})
    if type(payload) is not dict:
        raise ProtocolError("bad function")
    if "import" in payload:
        module, _, qualname = str(payload["import"]).partition(":")
        target: Any = importlib.import_module(module)
        for part in qualname.split("."):
            target = getattr(target, part)
        return target
    source, kind, name = payload.get("source"), payload.get("kind"), payload.get("name")
    free = payload.get("free")
    if type(source) is not str or kind not in ("def", "lambda") or type(name) is not str or type(free) is not list:
        raise ProtocolError("bad function")
    if not all(type(f) is str and f.isidentifier() for f in free):
        raise ProtocolError("bad function")
    namespace: dict[str, Any] = {"__builtins__": _builtins, "__name__": "check"}
    for entry in payload.get("globals") or []:
        if type(entry) is not list or len(entry) != 2 or type(entry[0]) is not str:
            raise ProtocolError("bad function")
        namespace[entry[0]] = decode(entry[1])
    closure = [decode(v) for v in payload.get("closure") or []]
    body = "\n".join("    " + line for line in source.splitlines())
    if kind == "def":
        factory = f"def __coursegen_make__({', '.join(free)}):\n{body}\n    return {name}\n"
    else:
        factory = f"def __coursegen_make__({', '.join(free)}):\n    return (\n{body}\n    )\n"
    exec(compile(factory, f"<function {name} from the check>", "exec"), namespace)
    function = namespace.pop("__coursegen_make__")(*closure)
    if payload.get("defaults") is not None:
        function.__defaults__ = tuple(decode(payload["defaults"]))
    if payload.get("kwdefaults") is not None:
        function.__kwdefaults__ = {str(k): v for k, v in decode(payload["kwdefaults"]).items()}
    return function
