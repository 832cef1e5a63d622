"""What students are told, built from the course: the student guide (STUDENTS.md, written by
`coursegen new` and `coursegen guide`) and the exercises page's "check your work" and "submit".

Everything comes from course.yaml: the title, the lessons with exercises (one notebook each), what
the notebooks need besides Python (`requires:`), and how work is handed in (`submission:`,
route gradescope, classroom, lms or service, with the instructor's own `where`; with service the
notebooks' `submit()` is explained too). Nothing names an
instructor command: students have the site and the notebooks, not the grader.
"""

from __future__ import annotations

from typing import Any

from .schema import Course, Language

ROUTES = ("gradescope", "classroom", "lms", "service")

SUBMIT: dict[str, dict[str, str]] = {
    "gradescope": {
        "en": "Upload your notebook (`.ipynb`) to the lesson's Gradescope assignment{where}. It is graded "
        "there with the same checks as the self-check plus hidden ones; your score and feedback appear in Gradescope.",
        "zh": "把你的笔记本（`.ipynb`）上传到本课在 Gradescope 上的作业{where}。评分使用与自检相同的检查，"
        "另加隐藏检查；分数和反馈显示在 Gradescope 中。",
    },
    "classroom": {
        "en": "Commit and push your notebook to your GitHub Classroom repository{where}. Every push runs the "
        "public checks as feedback (the repository's Actions tab); that is not your grade: your instructor "
        "grades the notebook separately, with hidden checks too.",
        "zh": "把你的笔记本提交（commit）并推送（push）到你的 GitHub Classroom 仓库{where}。每次推送都会运行"
        "公开检查作为反馈（见仓库的 Actions 标签页）；那不是成绩：老师会另行评分，并使用隐藏检查。",
    },
    "lms": {
        "en": "Upload your notebook (or a `.py` file defining the functions) to {where_or_default}. It is graded "
        "with the same checks as the self-check plus hidden ones.",
        "zh": "把你的笔记本（或定义了这些函数的 `.py` 文件）上传到{where_or_default}。评分使用与自检相同的检查，"
        "另加隐藏检查。",
    },
    "service": {
        "en": "Open the course's grading service at {url}{where}, paste the token your instructor gave you (once: "
        "the page remembers it), choose the assignment and upload your notebook (or a `.py` file defining the "
        "functions). It is graded within seconds with the same checks as the self-check plus hidden ones; your "
        "score and feedback appear on the page.",
        "zh": "打开课程的评分服务 {url}{where}，粘贴老师发给你的令牌（只需一次：页面会记住它），选择作业并上传你的笔记本"
        "（或定义了这些函数的 `.py` 文件）。几秒内即完成评分，使用与自检相同的检查，另加隐藏检查；分数和反馈显示在页面上。",
    },
}
# route service: the notebooks' own submit() (coursegen/selfcheck_tools.py), a paragraph of its own
SUBMIT_FROM_NOTEBOOK = {
    "en": "Or hand it in from the notebook itself: save the notebook, then run `submit()` in a new cell. It sends "
    "the notebook file (the one Jupyter or VS Code has open, else `<lesson>.ipynb` in the kernel's current "
    'folder, the notebook\'s own in Jupyter and VS Code; give another with `submit(path="folder/name.ipynb")`) together with the '
    "assignment's other notebooks found beside it, waits for the grade and prints your score and the "
    "feedback of each check in the notebook's language. It asks for your token (typed, never saved in the "
    "notebook: it lasts until the kernel restarts), or reads it from the `COURSEGEN_TOKEN` environment "
    'variable. Where a notebook\'s exercises belong to several assignments, name one: `submit("hw1")`. '
    "In Colab, upload the notebook on the service's page instead (Colab's notebook is not a file the "
    "kernel can read).",
    "zh": "也可以直接在笔记本中提交：先保存笔记本，再在新单元中运行 `submit()`。它会发送笔记本文件（Jupyter 或 VS Code "
    "打开的那个文件，否则是内核当前文件夹（在 Jupyter 和 VS Code 中即笔记本所在的文件夹）中的 `<课程>.ipynb`；其他位置的文件用 "
    '`submit(path="文件夹/文件名.ipynb")` 指定），连同同一文件夹中本作业的其他笔记本，等待评分，'
    "然后用笔记本的语言显示你的分数和每项检查的反馈。它会询问你的令牌（输入后不会保存在笔记本中，内核重启后需重新输入），"
    '或从环境变量 `COURSEGEN_TOKEN` 读取。如果一个笔记本的练习属于多个作业，请指明作业：`submit("hw1")`。'
    "在 Colab 中请改在评分服务的页面上上传笔记本（Colab 的笔记本不是内核能读取的文件）。",
}
DEFAULT_WHERE = {"en": "the course's submission page", "zh": "课程的提交页面"}

SELF_CHECK = {
    "en": "Open the notebook in Jupyter, VS Code or Colab and run the setup cell and the self-check tools "
    "cell. Write your code in each exercise cell, run it, then run the self-check cell below it: it prints "
    "`[PASS]`, `[FAIL]` with the first difference, or `[TODO]` while the exercise is not implemented yet. "
    "The self-check needs only {needs}: no grader, no network.",
    "zh": "用 Jupyter、VS Code 或 Colab 打开笔记本，运行准备单元和自检工具单元。在每道练习的代码单元中写代码并运行，"
    "再运行它下面的自检单元：通过时输出 `[PASS]`，出错时输出 `[FAIL]` 及第一个不同之处，尚未实现时输出 `[TODO]`。"
    "自检只需要{needs}：不需要评分器，也不需要网络。",
}


def _needs(course: Course, lang: Language) -> str:
    libraries = [f"`{r}`" for r in course.requires]
    if lang == "zh":
        return " Python" + ("".join(f" 和 {name}" for name in libraries))
    return "Python" + ("".join(f" and {name}" for name in libraries))


def self_check_text(course: Course, lang: Language) -> str:
    return SELF_CHECK[lang].format(needs=_needs(course, lang))


def submit_text(course: Course, lang: Language) -> str:
    where_text = course.submission.where.get(lang) if course.submission.where is not None else None
    route = course.submission.route
    if route == "lms":
        return SUBMIT[route][lang].format(where_or_default=where_text or DEFAULT_WHERE[lang])
    where = ""
    if where_text:
        where = f" ({where_text})" if lang == "en" else f"（{where_text}）"
    return SUBMIT[route][lang].format(where=where, url=course.submission.url or "")


def submit_from_notebook_text(course: Course, lang: Language) -> str | None:
    """How `submit()` in the notebooks hands work in (route service only), else None."""
    return SUBMIT_FROM_NOTEBOOK[lang] if course.submission.route == "service" else None


def install_command(course: Course) -> str:
    """The one line that installs what the notebooks need (Jupyter and the course's requires)."""
    parts = [
        "python -m pip install notebook",
        *(f'"{r}"' if any(c in r for c in "<>=!~; ") else r for r in course.requires),
    ]
    return " ".join(parts)


_GUIDE = {
    "en": {
        "title": "# {title}: a guide for students",
        "intro": "This course comes as a website (lessons, a glossary, quizzes) and one Jupyter notebook per "
        "lesson with exercises. You write your code in the notebooks, check it yourself as you go, and hand "
        "the notebooks in.",
        "need": "## What you need",
        "need_text": "Python 3.11 or newer, and a notebook editor. Install Jupyter and what this course's code "
        "uses with:",
        "need_colab": "Or open the notebooks in Google Colab or VS Code (install {requires} there too).",
        "need_plain": "Python 3.11 or newer, and a notebook editor: the notebooks use nothing but the Python "
        "standard library. Install Jupyter with:",
        "colab_plain": "Or open the notebooks in Google Colab or VS Code: nothing else to install.",
        "get": "## Getting the notebooks",
        "get_text": "Open the course website, go to **Exercises** and download each lesson's notebook "
        "(the same file is linked from the lesson's page). The notebooks with exercises:",
        "check": "## Checking your work",
        "rules": "Keep each function's name and signature: the grader calls them by name. Only the exercise "
        "cells are graded (you may add cells of your own; they are ignored); do not rely on other cells.",
        "submit": "## Submitting",
        "feedback": "## Reading the feedback",
        "feedback_text": "Each check says what it tested and, when it fails, the first wrong value, the "
        "expected one and the largest error. Where your result matches a typical mistake, a hint says what "
        "the mistake is. Hidden checks show only their name and whether they passed.",
    },
    "zh": {
        "title": "# {title}：学生指南",
        "intro": "本课程包括一个网站（课程内容、术语表、测验），以及每节带练习的课对应的一个 Jupyter 笔记本。"
        "你在笔记本中写代码，边写边自检，最后提交笔记本。",
        "need": "## 你需要什么",
        "need_text": "Python 3.11 或更新版本，以及一个笔记本编辑器。用下面的命令安装 Jupyter 和本课程代码用到的库：",
        "need_colab": "也可以在 Google Colab 或 VS Code 中打开笔记本（同样需要安装 {requires}）。",
        "need_plain": "Python 3.11 或更新版本，以及一个笔记本编辑器：笔记本只用 Python 标准库。用下面的命令安装 Jupyter：",
        "colab_plain": "也可以在 Google Colab 或 VS Code 中打开笔记本：无需安装其他东西。",
        "get": "## 获取笔记本",
        "get_text": "打开课程网站，进入 **练习** 页面，下载每节课的笔记本（课程页面上也有同一文件的链接）。带练习的笔记本：",
        "check": "## 检查你的代码",
        "rules": "请保持每个函数的名称和签名不变：评分器按名称调用它们。评分只看练习单元（你可以添加自己的单元，"
        "评分时会忽略它们）；不要依赖其他单元。",
        "submit": "## 提交",
        "feedback": "## 阅读反馈",
        "feedback_text": "每项检查都会说明它检查了什么；未通过时给出第一个错误的值、期望值和最大误差。"
        "如果你的结果与某个典型错误一致，还会有提示说明错在哪里。隐藏检查只显示名称和是否通过。",
    },
}


def due_dates(loaded, lang: Language) -> list[tuple[str, str]]:
    """(assignment title, due date-time with its offset) of every assignment that declares `due:`,
    as the exercises page and the student guide show them."""
    from grader.reporting.lateness import parse_due

    shown = []
    for spec in loaded.course.assignments or []:
        moment = parse_due(spec.due)
        if moment is not None:
            offset = moment.strftime("%z")
            stamp = moment.strftime("%Y-%m-%d %H:%M") + (
                " UTC" if offset == "+0000" else f" UTC{offset[:3]}:{offset[3:]}"
            )
            shown.append((spec.title.get(lang) or spec.title.en, stamp))
    return shown


def _due_lines(loaded: Any, lang: Language) -> list[str]:
    """The assignments' due dates (as the site's exercises page shows them), one list; none: nothing."""
    shown = due_dates(loaded, lang)
    if not shown:
        return []
    word = "截止" if lang == "zh" else "due"
    colon = "：" if lang == "zh" else ": "
    return ["\n".join(f"- {title}{colon}{word} {due}" for title, due in shown)]


def guide_markdown(loaded: Any) -> str:
    """STUDENTS.md: the guide in every language of the course, built from its course.yaml and lessons."""
    course: Course = loaded.course
    parts = []
    for lang in course.languages:
        text = _GUIDE[lang]
        requires = ", ".join(f"`{r}`" for r in course.requires)
        colon, (left, right) = ("：", ("（", "）")) if lang == "zh" else (": ", (" (", ")"))
        notebooks = [
            f"- `{lesson.id}.ipynb`{colon}{lesson.title.get(lang)}{left}"
            f"{', '.join(f'`{e.name}`' for e in lesson.exercises)}{right}"
            for lesson in loaded.lessons
            if lesson.exercises
        ]
        parts += [
            text["title"].format(title=course.title.get(lang)),
            text["intro"],
            text["need"],
            text["need_text"] if requires else text["need_plain"],
            f"```bash\n{install_command(course)}\n```",
            text["need_colab"].format(requires=requires) if requires else text["colab_plain"],
            text["get"],
            text["get_text"],
            "\n".join(notebooks),
            text["check"],
            self_check_text(course, lang),
            text["rules"],
            text["submit"],
            submit_text(course, lang),
            *filter(None, [submit_from_notebook_text(course, lang)]),
            *_due_lines(loaded, lang),
            text["feedback"],
            text["feedback_text"],
        ]
    return "\n\n".join(parts) + "\n"
