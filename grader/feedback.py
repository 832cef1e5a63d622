"""The sentences the grader says to a student, in English and Simplified Chinese.

Every message the grader writes for a student goes through `say(key, lang, **values)`,
so that both languages always exist for every message (a test checks the table).
"""
from __future__ import annotations

LANGUAGES = ("en", "zh")

MESSAGES: dict[str, dict[str, str]] = {
    # comparisons (grader/checking.py)
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
              "({count} of {total} elements wrong, max abs error {max_error}).",
        "zh": "{what} 在下标 {index} 处出错：应为 {expected}，实际为 {actual}"
              "（{total} 个元素中有 {count} 个不对，最大绝对误差 {max_error}）。",
    },
    "not_finite": {
        "en": "{what} contains {actual} at index {index} where {expected} was expected "
              "({count} of {total} elements are NaN or infinite).",
        "zh": "{what} 在下标 {index} 处为 {actual}，应为 {expected}"
              "（{total} 个元素中有 {count} 个是 NaN 或无穷大）。",
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
    # grading (grader/grade.py)
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
    "check_error": {
        "en": "the check could not finish: {error}",
        "zh": "检查无法完成：{error}",
    },
    # reports (grader/reports.py)
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
}


def say(key: str, lang: str = "en", **values: object) -> str:
    """The message `key` in `lang` ("en" or "zh"), with `values` filled in."""
    entry = MESSAGES[key]
    return entry.get(lang, entry["en"]).format(**values)
