"""The sentences a student reads when their code misbehaves in the sandbox, in English and
Simplified Chinese. Each is one plain sentence; `{where}` is the function being graded
("dot", "LinearModel.forward") or, for the import of the file, "at import" / "导入时"."""

from __future__ import annotations

SENTENCES: dict[str, dict[str, str]] = {
    "timeout": {
        "en": "your code ran longer than {seconds:g} s {where}",
        "zh": "你的代码{where}运行超过了 {seconds:g} 秒",
    },
    "total_time": {
        "en": "your code ran longer than {seconds:g} s in total, so {name} was not run",
        "zh": "你的代码总运行时间超过了 {seconds:g} 秒，因此没有运行 {name}",
    },
    "cpu": {
        "en": "your code used more than {seconds:g} s of CPU time {where}",
        "zh": "你的代码{where}使用的 CPU 时间超过了 {seconds:g} 秒",
    },
    "memory": {
        "en": "your code used more than {mb} MB of memory {where}",
        "zh": "你的代码{where}使用的内存超过了 {mb} MB",
    },
    "file_size": {
        "en": "your code wrote a file larger than {mb} MB {where}",
        "zh": "你的代码{where}写入的文件超过了 {mb} MB",
    },
    "output": {
        "en": "output limit exceeded: your code printed more than {kb} KB {where}",
        "zh": "输出超出限制：你的代码{where}打印的内容超过了 {kb} KB",
    },
    "raised": {
        "en": "{name} raised {type}: {detail}",
        "zh": "{name} 抛出了 {type}：{detail}",
    },
    "raised_plain": {
        "en": "{name} raised {type}",
        "zh": "{name} 抛出了 {type}",
    },
    "returned": {
        "en": "{name} returned a {type} where a tensor or number was expected",
        "zh": "{name} 返回了 {type}，而这里需要的是张量或数字",
    },
    "exited": {
        "en": "your code ended the process (exit code {code}) {where}",
        "zh": "你的代码{where}结束了进程（退出码 {code}）",
    },
    "crashed": {
        "en": "your code crashed (signal {signal}) {where}",
        "zh": "你的代码{where}崩溃了（信号 {signal}）",
    },
    "garbled": {
        "en": "your code sent data the grader could not read {where}",
        "zh": "你的代码{where}发送了评分程序无法读取的数据",
    },
    "broken": {
        "en": "your code broke the sandbox's Python runtime {where} (for example by replacing builtins)",
        "zh": "你的代码{where}破坏了沙箱中的 Python 运行环境（例如替换了内置函数）",
    },
    "missing": {
        "en": "your code does not define {name}",
        "zh": "你的代码没有定义 {name}",
    },
    "gone": {
        "en": "your code had already crashed, so {name} could not run",
        "zh": "你的代码之前已经崩溃，{name} 无法运行",
    },
    "lost_object": {
        "en": "this {name} object was lost when your code crashed earlier",
        "zh": "你的代码之前崩溃时，这个 {name} 对象已经丢失",
    },
    "import_failed": {
        "en": "your code failed to import: {type} at line {line}: {detail}",
        "zh": "你的代码导入失败：第 {line} 行出现 {type}：{detail}",
    },
    "import_failed_noline": {
        "en": "your code failed to import: {type}: {detail}",
        "zh": "你的代码导入失败：{type}：{detail}",
    },
}

WHERE = {
    "import": {"en": "at import", "zh": "在导入时"},
    "call": {"en": "in {name}", "zh": "在 {name} 中"},
}


def where(name: str | None, lang: str) -> str:
    """'in dot' / '在 dot 中', or 'at import' when name is None."""
    lang = lang if lang in ("en", "zh") else "en"
    if name is None:
        return WHERE["import"][lang]
    return WHERE["call"][lang].format(name=name)


def sentence(key: str, lang: str, **fields) -> str:
    """The sentence `key` in `lang` (en when unknown) with `fields` filled in."""
    lang = lang if lang in ("en", "zh") else "en"
    text = SENTENCES[key][lang].format(**fields)
    if lang == "zh":  # "你的代码在 f 中运行" reads without a space before 在
        return text
    return " ".join(text.split())
