"""The sentences the grader says to a student, in English and Simplified Chinese.

Every message the grader writes for a student goes through `say(key, lang, **values)`,
so that both languages always exist for every message (a test checks the table).

What a submission's reader finds (a refusal, a problem) is kept as a kind with its parameters,
`said(key, **values)` (a `Said`), stored so in the gradebook (`stored` / `restored`), and put
into words only when shown, in the reader's language: `shown(problem, lang)`. Runs stored
before kept the sentence itself: a plain string, shown as it is.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Union

LANGUAGES = ("en", "zh")

MESSAGES: dict[str, dict[str, str]] = {
    # comparisons (grader/checking/)
    "wrong_type": {
        "en": "{what} returned {actual}, expected {expected}.",
        "zh": "{what} 返回了 {actual}，应为 {expected}。",
    },
    "wrong_length": {
        "en": "{what} has {actual} items, expected {expected}.",
        "zh": "{what} 有 {actual} 个元素，应为 {expected} 个。",
    },
    "wrong_shape": {
        "en": "{what} has shape {actual}, expected {expected}.",
        "zh": "{what} 的形状是 {actual}，应为 {expected}。",
    },
    "wrong_dtype": {
        "en": "{what} has dtype {actual}, expected {expected}.",
        "zh": "{what} 的 dtype 是 {actual}，应为 {expected}。",
    },
    "wrong_value": {
        "en": "{what} is wrong at index {index}: expected {expected}, got {actual} "
        "({difference}; {count} of {total} elements wrong, max abs error {max_error}).",
        "zh": "{what} 在下标 {index} 处出错：应为 {expected}，实际为 {actual}"
        "（{difference}；{total} 个元素中有 {count} 个不对，最大绝对误差 {max_error}）。",
    },
    "wrong_number": {
        "en": "{what} is {actual}, expected {expected} ({difference}).",
        "zh": "{what} 的值是 {actual}，应为 {expected}（{difference}）。",
    },
    "difference": {
        "en": "they differ by {absolute}, relative {relative}; the tolerance is {tolerance} "
        "(atol {atol} + rtol {rtol} × |expected|)",
        "zh": "两者相差 {absolute}，相对误差 {relative}；容差为 {tolerance}（atol {atol} + rtol {rtol} × |应为值|）",
    },
    "not_finite": {
        "en": "{what} contains {actual} at index {index} where {expected} was expected "
        "({count} of {total} elements are NaN or infinite).",
        "zh": "{what} 在下标 {index} 处为 {actual}，应为 {expected}（{total} 个元素中有 {count} 个是 NaN 或无穷大）。",
    },
    "wrong_scalar": {
        "en": "{what} is {actual}, expected {expected}.",
        "zh": "{what} 的值是 {actual}，应为 {expected}。",
    },
    "no_exception": {
        "en": "{what} should raise {expected}, but it returned normally.",
        "zh": "{what} 应当抛出 {expected}，但它正常返回了。",
    },
    "wrong_exception": {
        "en": "{what} should raise {expected}, but: {actual}",
        "zh": "{what} 应当抛出 {expected}，但是：{actual}",
    },
    "hint": {"en": "Hint: {hint}", "zh": "提示：{hint}"},
    # grading (grader/running/grade.py)
    "not_defined": {
        "en": "{name} is not defined in your submission.",
        "zh": "你的提交中没有定义 {name}。",
    },
    "not_loaded": {
        "en": "your submission could not be run: {reason}",
        "zh": "你的提交无法运行：{reason}",
    },
    "hidden_failed": {
        "en": "This hidden check failed.",
        "zh": "这个隐藏检查未通过。",
    },
    "hidden_failed_guard": {
        "en": "This hidden check failed at its first step: {name} must also return the right values on an "
        "ordinary input, and it does not yet.",
        "zh": "这个隐藏检查在第一步就未通过：{name} 在普通输入上也必须返回正确的值，目前还不是这样。",
    },
    "hidden_failed_property": {
        "en": "This hidden check failed: {property}",
        "zh": "这个隐藏检查未通过：{property}",
    },
    "input_changed": {
        "en": "{what} changed its argument `{name}`: {problem} The input must not be changed: "
        "build and return a new value (e.g. work on list({name}) or {name}.clone()).",
        "zh": "{what} 修改了它的参数 `{name}`：{problem} 输入不能被修改："
        "请构造并返回一个新的值（例如对 list({name}) 或 {name}.clone() 操作）。",
    },
    "timed_out_before": {
        "en": "Not run: {name} already ran out of time in an earlier check ({first}), so its remaining checks "
        "fail without running it again (an endless loop costs the time limit once, not once per check).",
        "zh": "未运行：{name} 在前面的检查中已经超时（{first}），所以它其余的检查直接判为未通过，不再运行"
        "（死循环只耗费一次时间限制，而不是每项检查一次）。",
    },
    "unusable_value": {
        "en": "{name} returned a value the check cannot use as an answer ({error}); "
        "return what the exercise asks for (see its contract)",
        "zh": "{name} 返回的值无法作为答案使用（{error}）；请按练习的约定返回所要求的值",
    },
    "check_error": {
        "en": "the check could not finish: {error}",
        "zh": "检查无法完成：{error}",
    },
    "too_small": {
        "en": "{what} is {actual}, but must be at least {bound}: {why}",
        "zh": "{what} 为 {actual}，但至少应为 {bound}：{why}",
    },
    "needs_right_values": {
        "en": "This check counts only when {name} also returns the right values on an ordinary input, and it does not yet:",
        "zh": "只有当 {name} 在普通输入上也返回正确的值时，这个检查才计分，目前还不是这样：",
    },
    "worker_died": {
        "en": "the grading process on the cluster died {count} time(s) while grading this submission; "
        "graded 0 without another attempt",
        "zh": "集群上的评分进程在评分这份提交时崩溃了 {count} 次；记 0 分，不再重试",
    },
    # submissions (grader/reading/submission.py)
    "too_large": {
        "en": "the file is {size:.1f} MB; the limit is {limit} MB",
        "zh": "文件大小为 {size:.1f} MB，上限是 {limit} MB",
    },
    "not_utf8": {
        "en": "the file is not UTF-8 text (byte 0x{byte:02x} at offset {offset})",
        "zh": "文件不是 UTF-8 文本（偏移 {offset} 处的字节 0x{byte:02x}）",
    },
    "symlink": {
        "en": "{name} is a symbolic link; links are not followed, submit the file itself",
        "zh": "{name} 是符号链接；评分程序不跟随链接，请提交文件本身",
    },
    "hard_link": {
        "en": "{name} has {count} names (hard links); submit a copy of the file itself",
        "zh": "{name} 有 {count} 个名字（硬链接）；请提交文件本身的副本",
    },
    "too_deep": {
        "en": "{name} has folders nested more than {limit} deep; submit your exercise files only",
        "zh": "{name} 中的文件夹嵌套超过 {limit} 层；请只提交练习文件",
    },
    "too_many_files": {
        "en": "{name} holds more than {limit} files; submit your exercise files only",
        "zh": "{name} 中的文件超过 {limit} 个；请只提交练习文件",
    },
    "not_regular": {
        "en": "{name} is not a regular file",
        "zh": "{name} 不是普通文件",
    },
    "cannot_open": {
        "en": "{name} could not be opened ({reason})",
        "zh": "无法打开 {name}（{reason}）",
    },
    "too_many_tokens": {
        "en": "the code is too long to grade (more than {limit} tokens)",
        "zh": "代码太长，无法评分（超过 {limit} 个词法单元）",
    },
    "json_too_large": {
        "en": "the notebook holds too many JSON values to read (more than {limit})",
        "zh": "笔记本中的 JSON 值太多，无法读取（超过 {limit} 个）",
    },
    "json_too_deep": {
        "en": "the notebook's JSON is nested too deeply to read (more than {limit} levels)",
        "zh": "笔记本的 JSON 嵌套太深，无法读取（超过 {limit} 层）",
    },
    "too_complex": {
        "en": "the file is too complex to read ({what})",
        "zh": "文件太复杂，无法读取（{what}）",
    },
    "unreadable": {
        "en": "the file could not be read ({what})",
        "zh": "无法读取该文件（{what}）",
    },
    "not_json": {
        "en": "the notebook is not valid JSON (line {line}, column {column}: {message})",
        "zh": "笔记本不是有效的 JSON（第 {line} 行第 {column} 列：{message}）",
    },
    "not_notebook": {
        "en": "the file is not a Jupyter notebook ({reason})",
        "zh": "文件不是 Jupyter 笔记本（{reason}）",
    },
    "old_nbformat": {
        "en": "notebook format {version} is not supported; open and save it in Jupyter to convert it to format 4",
        "zh": "不支持第 {version} 版笔记本格式；请在 Jupyter 中打开并保存，转换为第 4 版",
    },
    "wrong_suffix": {
        "en": "{name} is not a .py or .ipynb file",
        "zh": "{name} 不是 .py 或 .ipynb 文件",
    },
    "syntax_error": {
        "en": "syntax error at line {line}, column {column}: {message}",
        "zh": "第 {line} 行第 {column} 列有语法错误：{message}",
    },
    "cell_syntax_error": {
        "en": "cell {cell} has a syntax error at line {line}, column {column}: {message}; it was not run",
        "zh": "第 {cell} 个单元格第 {line} 行第 {column} 列有语法错误：{message}；该单元格没有运行",
    },
    "no_exercises": {
        "en": "the file defines none of the exercises ({names})",
        "zh": "文件中没有定义任何练习（{names}）",
    },
    "no_cell_defines": {
        "en": "no cell defines {name}",
        "zh": "没有任何单元格定义 {name}",
    },
    "assignment_none_defined": {
        "en": "the file defines none of the exercises of assignment {assignment} ({names}): graded 0 of {max}",
        "zh": "文件中没有定义作业 {assignment} 的任何练习（{names}）：得分 0/{max}",
    },
    "graded_unassigned": {
        "en": "module {modules} ({exercises}), as the file says; no assignment named "
        "(--assignment ID grades out of the assignment's maximum)",
        "zh": "模块 {modules}（{exercises}），依据文件本身；未指定作业（--assignment ID 按作业满分评分）",
    },
    "graded_against": {"en": "graded against", "zh": "评分依据"},
    "empty_folder": {
        "en": "the folder contains no .py or .ipynb file",
        "zh": "文件夹中没有 .py 或 .ipynb 文件",
    },
    "in_file": {"en": "{name}: {problem}", "zh": "{name}: {problem}"},  # one of a student's several files
    # reports (grader/reporting/reports.py)
    "score": {"en": "score", "zh": "得分"},
    "passed": {"en": "passed", "zh": "通过"},
    "failed": {"en": "failed", "zh": "未通过"},
    "hidden": {"en": "hidden", "zh": "隐藏"},
    "problems": {"en": "problems", "zh": "问题"},
    "check": {"en": "check", "zh": "检查"},
    "exercise": {"en": "exercise", "zh": "练习"},
    "points": {"en": "points", "zh": "分数"},
    "status": {"en": "status", "zh": "状态"},
    "student": {"en": "student", "zh": "学生"},
    "total": {"en": "total", "zh": "总计"},
    # lateness (grader/reporting/lateness.py), in reports and feedback files
    "raw_score": {"en": "raw score", "zh": "原始得分"},
    "late_by": {"en": "late by", "zh": "迟交时长"},
    "penalty": {"en": "late penalty", "zh": "迟交扣分"},
    "final_score": {"en": "final score", "zh": "最终得分"},
    "submitted_at": {"en": "submitted at", "zh": "提交时间"},
    "lateness_line": {
        "en": "raw score {raw}; late by {late_by}; late penalty {penalty}; final score {final}",
        "zh": "原始得分 {raw}；迟交时长 {late_by}；迟交扣分 {penalty}；最终得分 {final}",
    },
}


def say(key: str, lang: str = "en", **values: object) -> str:
    """The message `key` in `lang` ("en" or "zh"), with `values` filled in."""
    entry = MESSAGES[key]
    return entry.get(lang, entry["en"]).format(**values)


@dataclass(frozen=True)
class Said:
    """A message kept as its key and values, put into words when shown (`text(lang)`). A value
    may itself be a Said (a problem named with its file), shown in the same language."""

    key: str
    values: tuple[tuple[str, Any], ...] = ()

    def text(self, lang: str = "en") -> str:
        return say(self.key, lang, **{name: shown(value, lang) for name, value in self.values})

    def __str__(self) -> str:  # logs and errors for the instructor: English
        return self.text("en")

    def to_data(self) -> dict:
        return {"say": self.key, "values": {name: stored(value) for name, value in self.values}}


Problem = Union[str, Said]  # a Said, or the sentence a run stored before problems were kept as kinds


def said(key: str, **values: Any) -> Said:
    """The message `key` with `values` (numbers, strings or Said), to be shown in any language."""
    if key not in MESSAGES:
        raise KeyError(f"no message {key!r} in grader/feedback.py")
    return Said(key, tuple(values.items()))


def in_file(name: str, problem: Problem) -> Problem:
    """`problem`, said of the file `name` (one of a student's several files)."""
    return said("in_file", name=name, problem=problem) if isinstance(problem, Said) else f"{name}: {problem}"


def shown(problem: Any, lang: str = "en") -> Any:
    """A Said in words in `lang`; anything else (a stored sentence, a number) as it is."""
    return problem.text(lang) if isinstance(problem, Said) else problem


def stored(problem: Any) -> Any:
    """What the gradebook keeps (JSON): a Said as {"say": key, "values": {...}}, anything else as it is."""
    return problem.to_data() if isinstance(problem, Said) else problem


def restored(value: Any) -> Any:
    """The inverse of `stored`: ValueError when a kept message is malformed or unknown."""
    if not isinstance(value, dict):
        return value
    key, values = value.get("say"), value.get("values")
    if (
        set(value) != {"say", "values"}
        or not isinstance(key, str)
        or key not in MESSAGES
        or not isinstance(values, dict)
    ):
        raise ValueError(f"not a kept message: {str(value)[:80]}")
    for item in values.values():
        if not isinstance(item, (str, int, float, dict)) or isinstance(item, bool):
            raise ValueError(f"not a kept message value: {str(item)[:80]}")
    return Said(key, tuple((str(name), restored(item)) for name, item in values.items()))
