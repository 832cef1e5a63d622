"""Turn the self-check specs (the course's selfchecks(...), content/plugins/) into notebook code.

Two kinds of cell come from here:
  - `tools_cell(lang, requires, submission)`: the small, self-contained comparison helpers (plain
    Python and the course's libraries, no import of this project), read from the real file
    selfcheck_tools.py shipped beside this one, and the pass/fail/"not implemented yet" messages;
    with a `SubmitTarget` (route service) also `submit()`, which posts the notebook to the course's
    grading service with the standard library's urllib;
  - `selfcheck_cell(spec, lang, expected)`: one exercise's cases and properties, with the
    expected values embedded as literals.
`ExpectedValues` computes those literals by running each case with the reference solution
bound to the exercise name. It imports torch only on a cache miss: results are cached in
`<cache>/selfchecks/`, keyed by the hash of the solution sources, the case code, the torch
version and this file's format number, so a no-change rebuild never imports torch.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import importlib.resources
import importlib.util
import json
import math
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence


from .cache import Cache
from .errors import ContentError
from .selfcheck_cases import SelfCheckSpec

CACHE_FORMAT = 2
PASS, FAIL, TODO = "[PASS]", "[FAIL]", "[TODO]"  # fixed markers in every language

MESSAGES = {
    "en": {
        "tools_title": "# Self-check tools (read-only). Run this cell once; each exercise's self-check cell uses it.\n"
        "# Plain Python and torch: it works in JupyterLab, VS Code and Colab without coursegen installed.",
        "pass": PASS + " {name}: all {cases} public case(s) and {properties} property check(s) pass. "
        "(The grader also runs hidden checks.)",
        "todo": TODO + " {name} is not implemented yet: it raises NotImplementedError. "
        "Write your code in the cell above, run it, then run this cell again.",
        "todo_other": TODO + " {name} calls {other}, which is not implemented yet. Implement {other} first, "
        "run its cell, then run this cell again.",
        "undefined": FAIL + " {name} is not defined: run the cell that defines it first.",
        "fail_case": FAIL + " {name}, case {number} ({label}): {detail}",
        "fail_property": FAIL + ' {name}, property "{label}": {detail}',
        "raised": "your code raised {kind}: {message}",
        "type": "{where}: expected {expected}, got {actual}",
        "length": "{where}: expected {expected} item(s), got {actual}",
        "shape": "{where}: expected shape {expected}, got {actual}",
        "dtype": "{where}: expected dtype {expected}, got {actual}",
        "value": "{where}: first difference at index {index}: expected {expected}, got {actual} (max error {error})",
        "scalar": "{where}: expected {expected}, got {actual}",
        "not_raised": "expected {expected} to be raised, but nothing was raised",
        "wrong_raised": "expected {expected}, but your code raised {kind}: {message}",
        "does_not_hold": "it does not hold",
        "got": "it does not hold (got {shown})",
        "header": "# Self-check for `{name}` (read-only): {cases} small case(s) whose expected values were computed by\n"
        "# the reference solution when this notebook was built, and {properties} property check(s).",
        "tools_submit": "# submit() sends this notebook to the course's grading service and prints your grade "
        "(save the notebook first).",
        "submit_which": "This notebook's exercises belong to several assignments ({choices}): say which, "
        "e.g. submit({first!r}).",
        "submit_unknown": "No assignment {assignment!r} here: this notebook's exercises belong to {choices}.",
        "submit_no_notebook": "Could not find this notebook's file ({name}). Save it, then pass its path: "
        "submit(path='folder/{name}').",
        "submit_token_prompt": "Your grading token (from your instructor; it is not saved in the notebook): ",
        "submit_sending": "Sending {files} (saved at {saved}) for assignment {assignment} to {url}",
        "submit_missing": "Not found in {folder}: {files}. Their exercises are part of this assignment and score "
        "0 unless you put them there and submit again.",
        "submit_bad_token": "The grading service did not accept your token ({reason}). Run submit() again and "
        "type it carefully, or ask your instructor for a new one.",
        "submit_refused": "The grading service refused the submission (HTTP {status}): {reason}",
        "submit_unreachable": "Could not reach the grading service at {url}: {reason}",
        "submit_queued": "Received (submission {id}); grading...",
        "submit_pending": "Not graded yet (submission {id}): the grading service's page shows the result "
        "when it is ready.",
        "submit_failed": "The grading service could not grade this submission: {reason}",
        "submit_score": "Score for {assignment}: {score} / {max_score}",
        "submit_late": "Late by {hours} hour(s): late penalty {penalty}.",
        "submit_hidden": " (hidden check)",
    },
    "zh": {
        "tools_title": "# 自检工具（只读）。先运行一次本单元；每道练习的自检单元都会用到它。\n"
        "# 只用 Python 和 torch：无需安装 coursegen，在 JupyterLab、VS Code 和 Colab 中都能运行。",
        "pass": PASS + " {name}：全部 {cases} 个公开用例和 {properties} 项性质检查均通过。（评分器还会运行隐藏检查。）",
        "todo": TODO
        + " {name} 尚未实现：它引发了 NotImplementedError。请在上面的单元中编写代码并运行，然后再次运行本单元。",
        "todo_other": TODO + " {name} 调用了尚未实现的 {other}。请先实现 {other} 并运行它的单元，然后再次运行本单元。",
        "undefined": FAIL + " 尚未定义 {name}：请先运行定义它的单元。",
        "fail_case": FAIL + " {name}，用例 {number}（{label}）：{detail}",
        "fail_property": FAIL + " {name}，性质“{label}”：{detail}",
        "raised": "你的代码引发了 {kind}：{message}",
        "type": "{where}：期望 {expected}，实际为 {actual}",
        "length": "{where}：期望 {expected} 个元素，实际为 {actual} 个",
        "shape": "{where}：期望形状 {expected}，实际为 {actual}",
        "dtype": "{where}：期望 dtype {expected}，实际为 {actual}",
        "value": "{where}：第一个不同之处在索引 {index}：期望 {expected}，实际为 {actual}（最大误差 {error}）",
        "scalar": "{where}：期望 {expected}，实际为 {actual}",
        "not_raised": "期望引发 {expected}，但没有引发任何异常",
        "wrong_raised": "期望引发 {expected}，但你的代码引发了 {kind}：{message}",
        "does_not_hold": "该性质不成立",
        "got": "该性质不成立（实际为 {shown}）",
        "header": "# `{name}` 的自检（只读）：{cases} 个小用例（期望值在生成本笔记本时由参考答案计算）\n"
        "# 以及 {properties} 项性质检查。",
        "tools_submit": "# submit() 把本笔记本提交给课程的评分服务，并显示你的成绩（请先保存笔记本）。",
        "submit_which": "本笔记本的练习属于多个作业（{choices}）：请指明是哪一个，例如 submit({first!r})。",
        "submit_unknown": "没有作业 {assignment!r}：本笔记本的练习属于 {choices}。",
        "submit_no_notebook": "找不到本笔记本的文件（{name}）。请先保存，再给出它的路径：submit(path='文件夹/{name}')。",
        "submit_token_prompt": "你的评分令牌（由老师发放；不会保存在笔记本中）：",
        "submit_sending": "正在提交 {files}（保存于 {saved}），作业 {assignment}，评分服务 {url}",
        "submit_missing": "在 {folder} 中没有找到：{files}。它们的练习也属于本作业，除非你把它们放到那里再提交一次，否则计 0 分。",
        "submit_bad_token": "评分服务不接受你的令牌（{reason}）。请再次运行 submit() 并仔细输入，或向老师索取新令牌。",
        "submit_refused": "评分服务拒绝了这次提交（HTTP {status}）：{reason}",
        "submit_unreachable": "无法连接评分服务 {url}：{reason}",
        "submit_queued": "已收到（提交编号 {id}）；正在评分……",
        "submit_pending": "尚未评分完毕（提交编号 {id}）：结果出来后可在评分服务的页面上查看。",
        "submit_failed": "评分服务无法评分这次提交：{reason}",
        "submit_score": "作业 {assignment} 的得分：{score} / {max_score}",
        "submit_late": "迟交 {hours} 小时：迟交扣分 {penalty}。",
        "submit_hidden": "（隐藏检查）",
    },
}

_RUNTIME_MESSAGE_KEYS = (
    "pass",
    "todo",
    "todo_other",
    "undefined",
    "fail_case",
    "fail_property",
    "raised",
    "type",
    "length",
    "shape",
    "dtype",
    "value",
    "scalar",
    "not_raised",
    "wrong_raised",
    "does_not_hold",
    "got",
)
_SUBMIT_MESSAGE_KEYS = tuple(key for key in MESSAGES["en"] if key.startswith("submit_"))


@dataclass(frozen=True)
class SubmitTarget:
    """Where a notebook's submit() sends it (course.yaml `submission: {route: service, url}`): the
    service's address, the notebook's own file name, and the assignments its exercises belong to,
    each with the notebook names of its lessons (all sent together when found side by side)."""

    url: str
    notebook: str
    assignments: dict[str, list[str]]


def _uses(requires: Sequence[str]) -> tuple[bool, bool]:
    """(torch, numpy): which of them the course requires."""
    from grader import course_requires

    names = {course_requires.import_name(r) for r in requires}
    return "torch" in names, "numpy" in names


def _tools_source(libraries: Sequence[str]) -> str:
    """selfcheck_tools.py as cell text: its `# cell: never` regions and marker lines dropped, and
    each `# cell: with LIBRARY` region kept only when LIBRARY is in `libraries`."""
    text = importlib.resources.files(__package__).joinpath("selfcheck_tools.py").read_text(encoding="utf-8")
    kept: list[str] = []
    keeping = True
    for line in text.splitlines(keepends=True):
        marker = line.strip()
        if marker == "# cell: end":
            keeping = True
        elif marker == "# cell: never":
            keeping = False
        elif marker.startswith("# cell: with "):
            keeping = marker.removeprefix("# cell: with ") in libraries
        elif keeping:
            kept.append(line)
    return "".join(kept)


def tools_cell(lang: str, requires: Sequence[str], submission: SubmitTarget | None = None) -> str:
    """The self-check tools cell for a notebook in `lang`, comparing tensors for a course that
    requires torch and numpy arrays for one that requires numpy (`requires:` of course.yaml);
    with `submission` (route service) also `submit()` and where it sends the notebook."""
    messages = MESSAGES[lang]
    torch, numpy = _uses(requires)
    libraries = [name for name, used in (("numpy", numpy), ("torch", torch)) if used]
    title = (
        messages["tools_title"]
        .replace(" and torch", "".join(f" and {name}" for name in libraries))
        .replace(" 和 torch", "".join(f" 和 {name}" for name in libraries))
    )
    keys: tuple[str, ...] = _RUNTIME_MESSAGE_KEYS
    body = _tools_source(libraries + (["service"] if submission is not None else []))
    ending = ""
    if submission is not None:
        title += "\n" + messages["tools_submit"]
        keys += _SUBMIT_MESSAGE_KEYS
        target = {
            "url": submission.url,
            "lang": lang,
            "notebook": submission.notebook,
            "assignments": submission.assignments,
        }
        ending = f"_SUBMISSION = {json.dumps(target, ensure_ascii=False)}\n"
    table = "\n".join(f"    {key!r}: {messages[key]!r}," for key in keys)
    return f"{title}\n\n{body}\n\n_MESSAGES = {{\n{table}\n}}\n{ending}"


# ---- literals -----------------------------------------------------------------------------


def _float_literal(value: float, single_precision: bool) -> str:
    if math.isnan(value):
        return "float('nan')"
    if math.isinf(value):
        return "float('inf')" if value > 0 else "float('-inf')"
    # 9 significant digits round-trip every float32 exactly; repr round-trips float64.
    text = format(value, ".9g") if single_precision else repr(value)
    return text


def _nested(values: Any, single: bool, depth: int) -> str:
    if not isinstance(values, list):
        if isinstance(values, bool):
            return repr(values)
        if isinstance(values, float):
            return _float_literal(values, single)
        return repr(values)
    if not values or not isinstance(values[0], list):
        return "[" + ", ".join(_nested(v, single, depth + 1) for v in values) + "]"
    if depth == 0:  # single-line form
        return "[" + ", ".join(_nested(v, single, 0) for v in values) + "]"
    indent = " " * (depth + 1)
    return "[" + (",\n" + indent).join(_nested(v, single, depth + 1) for v in values) + "]"


def literal(value: Any) -> str:
    """Python source that rebuilds `value` (tensors, numpy arrays, numbers, strings, lists, tuples) exactly."""
    torch = sys.modules.get("torch")  # a tensor exists only once torch is imported
    numpy = sys.modules.get("numpy")
    if numpy is not None and isinstance(value, numpy.ndarray) and value.dtype.kind in "biuf":
        single = value.dtype in (numpy.float32, numpy.float16)
        dtype = f"numpy.{value.dtype.name}"
        if value.size == 0:
            return f"numpy.empty({tuple(value.shape)}, dtype={dtype})"
        one_line = _nested(value.tolist(), single, 0)
        if "\n" not in one_line and len(one_line) <= 72:
            return f"numpy.array({one_line}, dtype={dtype})"
        return f"numpy.array(\n    {_nested(value.tolist(), single, 4)},\n    dtype={dtype})"
    if numpy is not None and isinstance(value, numpy.generic) and value.dtype.kind in "biuf":
        return literal(value.item())
    if torch is not None and isinstance(value, torch.Tensor):
        value = value.detach()
        dtype = str(value.dtype)  # "torch.float32"
        if value.numel() == 0:
            return f"torch.empty({tuple(value.shape)}, dtype={dtype})"
        single = value.dtype in (torch.float32, torch.float16, torch.bfloat16)
        one_line = _nested(value.tolist(), single, 0)
        if "\n" not in one_line and len(one_line) <= 72:
            return f"torch.tensor({one_line}, dtype={dtype})"
        body = _nested(value.tolist(), single, 4)
        return f"torch.tensor(\n    {body},\n    dtype={dtype})"
    if isinstance(value, bool) or value is None or isinstance(value, (int, str)):
        return repr(value)
    if isinstance(value, float):
        return _float_literal(value, single_precision=False)
    if isinstance(value, tuple):
        items = [literal(v) for v in value]
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    if isinstance(value, list):
        return "[" + ", ".join(literal(v) for v in value) + "]"
    raise TypeError(f"cannot embed a {type(value).__name__} in a notebook")


# ---- the self-check cell ------------------------------------------------------------------


def _function(name: str, body: str) -> str:
    return f"def {name}():\n{textwrap.indent(body.rstrip(), '    ')}\n"


def case_function(spec: SelfCheckSpec, number: int) -> tuple[str, str]:
    name = f"_{spec.exercise}_case_{number}"
    return name, _function(name, spec.cases[number - 1].code)


def selfcheck_cell(spec: SelfCheckSpec, lang: str, expected: list[str]) -> str:
    """The self-check cell of one exercise; `expected[i]` is the literal for case i + 1."""
    messages = MESSAGES[lang]
    parts = [messages["header"].format(name=spec.exercise, cases=len(spec.cases), properties=len(spec.properties))]
    case_rows, property_rows = [], []
    for number, case in enumerate(spec.cases, 1):
        name, source = case_function(spec, number)
        parts.append(source.rstrip())
        parts.append(f"_{spec.exercise}_expected_{number} = {expected[number - 1]}")
        case_rows.append(
            f"    ({case.label[lang]!r}, {name}, _{spec.exercise}_expected_{number}, {case.atol!r}, {case.rtol!r}),"
        )
    for number, prop in enumerate(spec.properties, 1):
        name = f"_{spec.exercise}_property_{number}"
        parts.append(_function(name, prop.code).rstrip())
        property_rows.append(f"    ({prop.label[lang]!r}, {name}),")
    properties = "[\n" + "\n".join(property_rows) + "\n]" if property_rows else "[]"
    run = f"_run_selfcheck({spec.exercise!r}, [\n" + "\n".join(case_rows) + f"\n], {properties})"
    parts.append(run)
    return "\n\n".join(parts) + "\n"


# ---- expected values, computed by the reference and cached --------------------------------


@functools.lru_cache(maxsize=1)
def _torch_version() -> str:
    """torch's version without importing torch (a cache key part)."""
    try:
        return importlib.metadata.version("torch")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


class ExpectedValues:
    """Expected-value literals of each exercise's cases, from solutions/<module>.py."""

    def __init__(self, solutions_dir: Path, cache_dir: Path | None, requires: Sequence[str] | None = None):
        """`requires`: the course's `requires:` (None: read from the course of `solutions_dir`)."""
        from grader import course_requires

        if requires is None:
            requires = course_requires.course_requirements(Path(solutions_dir).parent)
        self.requires = tuple(requires)
        self.imports = tuple(dict.fromkeys(course_requires.import_name(r) for r in self.requires))
        self.uses_torch = "torch" in self.imports
        self.solutions_dir = Path(solutions_dir)
        self.cache = Cache(cache_dir) if cache_dir else None  # kind "selfchecks" of coursegen.cache
        self._modules: dict[str, Any] = {}
        self._sources_hash: str | None = None

    def _solutions_hash(self) -> str:
        if self._sources_hash is None:
            digest = hashlib.sha256()
            for path in sorted(self.solutions_dir.glob("*.py")):
                digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
            self._sources_hash = digest.hexdigest()
        return self._sources_hash

    def _key(self, spec: SelfCheckSpec) -> str:
        payload = json.dumps(
            {
                "format": CACHE_FORMAT,
                "torch": _torch_version(),
                "solutions": self._solutions_hash(),
                "exercise": spec.exercise,
                "cases": [case.code for case in spec.cases],
                **({} if self.uses_torch else {"requires": list(self.requires)}),
            },
            sort_keys=True,
        )
        return hashlib.sha256(payload.encode()).hexdigest()

    def literals(self, spec: SelfCheckSpec, module: str) -> list[str]:
        if self.cache is None:
            return self._compute(spec, module)
        key = f"{spec.exercise}-{self._key(spec)[:24]}"
        return self.cache.value("selfchecks", key, lambda: self._compute(spec, module))

    def _reference_module(self, module: str) -> Any:
        if module not in self._modules:
            path = self.solutions_dir / f"{module}.py"
            if not path.is_file():
                raise ContentError(
                    f"solutions/{module}.py", "reference solution not found; self-check values are computed from it"
                )
            spec = importlib.util.spec_from_file_location(f"_coursegen_reference_{module}", path)
            assert spec is not None and spec.loader is not None, path  # a .py file always has a loader
            loaded = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(loaded)  # trusted instructor code
            self._modules[module] = loaded
        return self._modules[module]

    def _compute(self, spec: SelfCheckSpec, module: str) -> list[str]:
        reference = getattr(self._reference_module(module), spec.exercise, None)
        if reference is None:
            raise ContentError(f"solutions/{module}.py", f"defines no {spec.exercise!r}")
        if not self.uses_torch:
            return self._compute_plain(spec, module, reference)
        import torch

        values = []
        for number in range(1, len(spec.cases) + 1):
            name, source = case_function(spec, number)
            namespace: dict[str, Any] = {"torch": torch, "math": math, spec.exercise: reference}
            exec(compile(source, f"<self-check {name}>", "exec"), namespace)
            try:
                result = self._run(torch, namespace[name], torch.float32)
            except Exception as exc:
                raise ContentError(
                    f"solutions/{module}.py",
                    f"the reference {spec.exercise} failed on self-check case {number}: {type(exc).__name__}: {exc}",
                ) from None
            try:
                precise = self._run(torch, namespace[name], torch.float64)
            except Exception:  # e.g. float64 defaults mixed with explicit float32 inputs
                precise = None
            values.append(literal(_rounded_like(precise, result, torch)))
        return values

    def _compute_plain(self, spec: SelfCheckSpec, module: str, reference: Any) -> list[str]:
        """A course without torch: each case runs once, with the modules it requires in scope."""
        values = []
        for number in range(1, len(spec.cases) + 1):
            name, source = case_function(spec, number)
            namespace: dict[str, Any] = {"math": math, spec.exercise: reference}
            for imported in self.imports:
                try:
                    namespace[imported] = importlib.import_module(imported)
                except ImportError:
                    pass
            exec(compile(source, f"<self-check {name}>", "exec"), namespace)
            try:
                result = namespace[name]()
            except Exception as exc:
                raise ContentError(
                    f"solutions/{module}.py",
                    f"the reference {spec.exercise} failed on self-check case {number}: {type(exc).__name__}: {exc}",
                ) from None
            values.append(literal(result))
        return values

    @staticmethod
    def _run(torch: Any, case: Any, default_dtype: Any) -> Any:
        previous = torch.get_default_dtype()
        torch.set_default_dtype(default_dtype)
        try:
            torch.manual_seed(0)  # modules initialise weights randomly before cases overwrite them
            return case()
        finally:
            torch.set_default_dtype(previous)


def _rounded_like(precise: Any, plain: Any, torch: Any) -> Any:
    """The float64 run's values in the float32 run's dtypes, where both runs agree on structure.

    Inputs built with torch's default dtype are float64 in the precise run, so the expected
    values are the exact results rounded once to float32, not float32 arithmetic (which can
    differ in the last bits between CPUs); explicit float32 inputs give identical runs.
    """
    if isinstance(plain, torch.Tensor):
        if (
            isinstance(precise, torch.Tensor)
            and precise.shape == plain.shape
            and plain.dtype.is_floating_point
            and precise.dtype.is_floating_point
        ):
            return precise.detach().to(plain.dtype)
        return plain
    if isinstance(plain, (list, tuple)) and isinstance(precise, (list, tuple)) and len(plain) == len(precise):
        return type(plain)(_rounded_like(a, b, torch) for a, b in zip(precise, plain))
    return plain
