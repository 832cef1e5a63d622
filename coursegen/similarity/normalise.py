"""A program in a canonical form, so that what a copier changes without changing the program does
not hide what two submissions share (`coursegen similarity`).

`normalise(code, exercise_names)` parses the code (already bounded by the submission reader) and
writes it back with `ast.unparse` after these rewrites, each undoing one way of disguising a copy:

- reformatting and comments: gone with the parse (unparse writes one layout);
- docstrings and bare string statements: removed;
- type annotations: removed (the stub has them, students often drop them);
- dead code: statements after a return, raise, continue or break in the same block; the bodies
  of `if False:` / `while False:` (`if True:` keeps only its body); assignments to a local name
  the function never reads; `print(...)` statements anywhere; top-level functions and classes
  nothing refers to (except the exercises), imports and assignments nothing reads; top-level
  expression statements, asserts and `if __name__ == "__main__":` blocks (notebook cells that
  print or test: they never run when graded);
- a loop that only accumulates into a variable made just before it becomes the expression it
  computes (`v = []` + `for t in it: [if c:] v.append(e)` -> `v = [e for t in it if c]`; the same
  for `v = {}` + `v[k] = e` (a dict comprehension) and `v = 0` + `v += e` (`sum(...)`));
- the order of the program: imports first (sorted), then the other top-level statements in their
  order, then the top-level definitions sorted (the exercises by name, helpers by their code with
  every name masked, so that renaming a helper does not move it).

Renaming is left to the token matcher (copydetect replaces every name by one letter); the
student's own names stay visible in the evidence page.
"""

from __future__ import annotations

import ast
import copy

_ENDS_BLOCK = (ast.Return, ast.Raise, ast.Continue, ast.Break)


def normalise(code: str, exercise_names: set[str] | frozenset[str]) -> str:
    """The canonical text of `code` (raises SyntaxError, ValueError when it does not parse)."""
    tree = ast.parse(code)
    tree = _Rewriter().visit(tree)
    body = _top_level(tree.body, exercise_names)
    module = ast.Module(body=body, type_ignores=[])
    ast.fix_missing_locations(module)
    return ast.unparse(module) + "\n"


def units(text: str) -> list[tuple[str, int, int]]:
    """The top-level statements of a normalised text as (key, start, end) character ranges; a
    definition's key is its name, every other statement's key is "" (used to align two programs)."""
    tree = ast.parse(text)
    starts = _line_starts(text)
    found = []
    for node in tree.body:
        start = starts[node.lineno - 1] + node.col_offset
        end = starts[(node.end_lineno or node.lineno) - 1] + (node.end_col_offset or 0)
        key = node.name if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) else ""
        found.append((key, start, end))
    return found


def _line_starts(text: str) -> list[int]:
    starts, total = [], 0
    for line in text.splitlines(keepends=True):
        starts.append(total)
        total += len(line)
    starts.append(total)
    return starts


class _Rewriter(ast.NodeTransformer):
    """Docstrings, annotations, dead code and append loops, in every block."""

    def visit_FunctionDef(self, node):  # noqa: N802 - ast's visitor names
        self.generic_visit(node)
        node.returns = None
        for arg in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs, node.args.vararg, node.args.kwarg):
            if arg is not None:
                arg.annotation = None
        node.decorator_list = []
        node.body = _unused_locals_dropped(node.body) or [ast.Pass()]
        return node

    visit_AsyncFunctionDef = visit_FunctionDef  # noqa: N815

    def visit_AnnAssign(self, node):  # noqa: N802
        self.generic_visit(node)
        if node.value is None:
            return None
        return ast.Assign(targets=[node.target], value=node.value)

    def generic_visit(self, node):
        super().generic_visit(node)
        for name in ("body", "orelse", "finalbody"):
            block = getattr(node, name, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                cleaned = _block(block)
                setattr(node, name, cleaned or ([ast.Pass()] if name == "body" else []))
        return node


def _block(block: list[ast.stmt]) -> list[ast.stmt]:
    out: list[ast.stmt] = []
    for statement in block:
        if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
            continue  # docstrings, bare strings, `...`
        if isinstance(statement, ast.Expr) and _is_print(statement.value):
            continue  # a debugging print: what it shows is not what the function returns
        if isinstance(statement, ast.Pass):
            continue
        if isinstance(statement, (ast.If, ast.While)) and isinstance(statement.test, ast.Constant):
            if statement.test.value:
                if isinstance(statement, ast.If):
                    out.extend(statement.body)
                    continue
            else:
                out.extend(statement.orelse)
                continue
        if (
            isinstance(statement, ast.For)
            and out
            and (comprehension := _as_comprehension(out[-1], statement)) is not None
        ):
            out[-1] = comprehension
            continue
        out.append(statement)
        if isinstance(statement, _ENDS_BLOCK):
            break  # what follows never runs
    return out


def _is_print(value: ast.expr) -> bool:
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "print"


def _as_comprehension(before: ast.stmt, loop: ast.For) -> ast.stmt | None:
    """A loop that only accumulates into a variable made just before it, as the expression it
    computes: `v = []` + `v.append(e)` -> `v = [e for ...]`; `v = {}` + `v[k] = e` -> `v = {k: e for ...}`;
    `v = 0` + `v += e` -> `v = sum(e for ...)`; the loop's body possibly under one `if`."""
    if not (
        isinstance(before, ast.Assign)
        and len(before.targets) == 1
        and isinstance(before.targets[0], ast.Name)
        and not loop.orelse
        and len(loop.body) == 1
    ):
        return None
    name = before.targets[0].id
    body, conditions = loop.body[0], []
    if isinstance(body, ast.If) and not body.orelse and len(body.body) == 1:
        conditions.append(body.test)
        body = body.body[0]
    generator = ast.comprehension(target=loop.target, iter=loop.iter, ifs=conditions, is_async=0)
    value: ast.expr | None = None
    start = before.value
    if isinstance(start, ast.List) and not start.elts and _appends_to(body, name):
        value = ast.ListComp(body.value.args[0], [generator])  # type: ignore[attr-defined]
    elif (
        isinstance(start, ast.Dict)
        and not start.keys
        and isinstance(body, ast.Assign)
        and len(body.targets) == 1
        and isinstance(body.targets[0], ast.Subscript)
        and isinstance(body.targets[0].value, ast.Name)
        and body.targets[0].value.id == name
    ):
        value = ast.DictComp(body.targets[0].slice, body.value, [generator])
    elif (
        isinstance(start, ast.Constant)
        and start.value == 0
        and isinstance(body, ast.AugAssign)
        and isinstance(body.op, ast.Add)
        and isinstance(body.target, ast.Name)
        and body.target.id == name
    ):
        value = ast.Call(ast.Name("sum", ast.Load()), [ast.GeneratorExp(body.value, [generator])], [])
    if value is None:
        return None
    return ast.Assign(targets=[ast.Name(id=name, ctx=ast.Store())], value=value)


def _appends_to(body: ast.stmt, name: str) -> bool:
    return (
        isinstance(body, ast.Expr)
        and isinstance(body.value, ast.Call)
        and isinstance(body.value.func, ast.Attribute)
        and body.value.func.attr == "append"
        and isinstance(body.value.func.value, ast.Name)
        and body.value.func.value.id == name
        and len(body.value.args) == 1
        and not body.value.keywords
    )


def _unused_locals_dropped(body: list[ast.stmt]) -> list[ast.stmt]:
    """A function body without the assignments to plain names it never reads (twice, for chains)."""
    for _ in range(2):
        holder = ast.Module(body=body, type_ignores=[])
        read = {n.id for n in ast.walk(holder) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Store)}
        declared = {name for n in ast.walk(holder) if isinstance(n, (ast.Global, ast.Nonlocal)) for name in n.names}
        body = _drop_assignments(body, read | declared)
    return body


def _drop_assignments(block: list[ast.stmt], read: set[str]) -> list[ast.stmt]:
    out = []
    for statement in block:
        if isinstance(statement, ast.Assign) and all(
            isinstance(t, ast.Name) and t.id not in read for t in statement.targets
        ):
            continue
        for name in ("body", "orelse", "finalbody"):
            inner = getattr(statement, name, None)
            if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                setattr(statement, name, _drop_assignments(inner, read) or ([ast.Pass()] if name == "body" else []))
        out.append(statement)
    return out


def _top_level(body: list[ast.stmt], exercises: set[str] | frozenset[str]) -> list[ast.stmt]:
    kept = [s for s in body if not _runs_only_when_tried(s)]
    kept = _unused_definitions_dropped(kept, exercises)
    kept = _unused_top_level_dropped(kept, exercises)
    imports = sorted((s for s in kept if isinstance(s, (ast.Import, ast.ImportFrom))), key=ast.dump)
    imports = [s for s in imports if not (isinstance(s, ast.ImportFrom) and s.module == "__future__")]
    definitions = [s for s in kept if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
    others = [s for s in kept if s not in imports and s not in definitions and not isinstance(s, ast.ImportFrom)]
    definitions.sort(key=lambda d: ("0" + d.name) if d.name in exercises else ("1" + _masked(d)))
    return [*dict.fromkeys(imports), *others, *definitions]


def _runs_only_when_tried(statement: ast.stmt) -> bool:
    """Top-level statements that compute nothing the grader uses: prints and calls, asserts,
    `if __name__ == "__main__":` blocks."""
    if isinstance(statement, (ast.Expr, ast.Assert)):
        return True
    if isinstance(statement, ast.If) and isinstance(statement.test, ast.Compare):
        left = statement.test.left
        return isinstance(left, ast.Name) and left.id == "__name__"
    return False


def _unused_definitions_dropped(body: list[ast.stmt], exercises: set[str] | frozenset[str]) -> list[ast.stmt]:
    while True:
        holder = ast.Module(body=body, type_ignores=[])
        used = {n.id for n in ast.walk(holder) if isinstance(n, ast.Name)}
        used |= {n.attr for n in ast.walk(holder) if isinstance(n, ast.Attribute)}
        unused = [
            s
            for s in body
            if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            and s.name not in exercises
            and s.name not in used
        ]
        if not unused:
            return body
        body = [s for s in body if s not in unused]


def _unused_top_level_dropped(body: list[ast.stmt], exercises: set[str] | frozenset[str]) -> list[ast.stmt]:
    """Without the imports and plain-name assignments nothing reads (the exercises are kept)."""
    holder = ast.Module(body=body, type_ignores=[])
    read = {n.id for n in ast.walk(holder) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Store)}
    read |= {n.value.id for n in ast.walk(holder) if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)}
    kept = []
    for statement in body:
        if isinstance(statement, (ast.Import, ast.ImportFrom)) and not any(
            (alias.asname or alias.name).split(".")[0] in read or alias.name == "*" for alias in statement.names
        ):
            if not (isinstance(statement, ast.ImportFrom) and statement.module == "__future__"):
                continue
        if isinstance(statement, ast.Assign) and all(
            isinstance(t, ast.Name) and t.id not in read and t.id not in exercises for t in statement.targets
        ):
            continue
        kept.append(statement)
    return kept


def _masked(node: ast.AST) -> str:
    """The code of a definition with every name, argument and attribute replaced by one letter."""
    clone = copy.deepcopy(node)
    for n in ast.walk(clone):
        if isinstance(n, ast.Name):
            n.id = "V"
        elif isinstance(n, ast.arg):
            n.arg = "V"
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            n.name = "F"
    return ast.unparse(clone)
