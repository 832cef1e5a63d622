"""Every command the documentation shows is run, so a documented command that fails breaks the build.

Where commands are found: the fenced ```bash blocks of README.md and docs/*.md, and the
`Example:` lines of every `--help` text. They run in document order, in ONE temporary copy of
the course (so the site is built once and later commands reuse it), with the fixture files
the commands name (submissions, notebooks, a roster, a responses CSV) laid out beforehand.
Each block runs as one bash script (a variable set on one line is seen by the next) and each
line must exit 0, or the exit code listed for it in EXPECTED_EXIT.

Lines are not run exactly as written only where a listed rule says so (SKIPPED, REWRITTEN, PLACEHOLDERS),
each with its reason; a rule that no longer matches any documented line fails the test, so
the list cannot silently grow stale.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import click
import pytest

REPO = Path(__file__).resolve().parents[2]
DOCUMENTS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
pytestmark = pytest.mark.slow

# (pattern matched against one command of a line, reason). A matching command is left out of its
# `&&` chain; a line left empty is not run.
SKIPPED = [
    (
        r"^(python -m )?pip install\b",
        "installs the project: the test environment already has it and its test "
        "extras, and installing would change the environment the suite runs in",
    ),
    (r"^python -m pytest\b", "the test suite itself, which contains this test; .ci/run runs it exactly as written"),
    (
        r"^bash tests/run\b",
        "installs what the tests need and runs the test suite, which contains this test; .ci/run runs it "
        "exactly as written",
    ),
    (r"^git clone\b", "the test already runs in a fresh copy of the repository, which is what the clone gives"),
    (
        r"^cd coursegen$",
        "enters the folder the skipped `git clone` makes: the test's copy of the repository is that folder "
        "(run there, the line would enter the repository's own coursegen/ package)",
    ),
    (r"^git push\b", "needs a remote repository"),
    (
        r"^(dask (scheduler|worker)|kubectl)\b|--scheduler\b",
        "starts or uses a Dask cluster on other machines, which this machine must never contact; the same "
        "commands run against a real scheduler and workers on 127.0.0.1 in tests/grader/test_grader_cluster.py, "
        "and tests/grader/test_docs_grading_at_scale.py checks the examples' syntax and options",
    ),
]
# (pattern, replacement, reason): the line that matches is replaced (re.sub) before it runs.
REWRITTEN = [
    (
        r"^coursegen serve\b.*?(\s--port\s+\d+)?$",
        "serve",
        "a server runs until it is stopped: it is started on a free port (8000 may be taken on a shared "
        "machine), must answer an HTTP request for /, and is stopped",
    ),
    (
        r"^python bench/build\.py$",
        "coursegen new ../bench-course >/dev/null && python bench/build.py --root ../bench-course",
        "the benchmark times cold builds and proofs of the whole first course (about six minutes on two "
        "cores, the longest test of the suite); the script itself runs, on the small course `coursegen new` "
        "writes, each of its steps (cold, no change, one prose word, one hint) the same way",
    ),
    (
        r"^(coursegen slides --pdf)(?!.*--lesson)(.*)$",
        r"\1 --lesson rope-alibi\2",
        "printing every deck of the course in Chromium takes most of a minute; the command runs as written "
        "on one lesson (its other options kept), and tests/browser/test_slides.py prints every deck of both "
        "languages and checks each handout's pages",
    ),
]
# (pattern, value, reason): a placeholder of a --help example, replaced wherever it stands.
PLACEHOLDERS = [
    (
        r"\bLESSON\b",
        "rope-alibi",
        "the engine's --help names no lesson of any course (it knows none); the test "
        "runs the example on one of this course's lessons with exercises",
    ),
    (
        r"\bASSIGNMENT\b",
        "rope-alibi",
        "the engine's --help names no assignment of any course; the test runs the example on one of "
        "this course's assignments",
    ),
]
# exact documented line (comments removed) -> the exit code the documentation promises for it
EXPECTED_EXIT: dict[str, int] = {}

SERVE_TIMEOUT = 180


@dataclass(frozen=True)
class Command:
    source: str  # "README.md:45" or "coursegen export classroom --help"
    block: str  # commands of one block share a shell
    line: str  # comments removed, continuation lines joined


def strip_comment(line: str) -> str:
    """The line without a trailing `# comment` (a # after whitespace, outside quotes)."""
    quote = None
    for index, char in enumerate(line):
        if quote:
            if char == quote:
                quote = None
        elif char in "'\"":
            quote = char
        elif char == "#" and (index == 0 or line[index - 1].isspace()):
            return line[:index].rstrip()
    return line.rstrip()


def bash_blocks(path: Path) -> list[Command]:
    text = path.read_text(encoding="utf-8")
    found = []
    for match in re.finditer(r"^```bash\n(.*?)^```", text, re.S | re.M):
        first = text[: match.start()].count("\n") + 2
        block = f"{path.name}:{first - 1}"
        pending, start = "", first
        for offset, raw in enumerate(match.group(1).splitlines()):
            if not pending:
                start = first + offset
            line = strip_comment(raw)
            if line.endswith("\\"):
                pending += line[:-1] + " "
                continue
            line = (pending + line).strip()
            pending = ""
            if line:
                found.append(Command(f"{path.relative_to(REPO)}:{start}", block, line))
    return found


def help_examples() -> list[Command]:
    """`Example:` / `Examples:` lines of every command's --help (the command on the same line, or
    the indented `coursegen ...` lines that follow)."""
    from coursegen.cli import main

    def walk(command: click.Command, path: list[str]):
        yield path, command
        if isinstance(command, click.Group):
            for name, sub in sorted(command.commands.items()):
                yield from walk(sub, [*path, name])

    found = []
    for path, command in walk(main, ["coursegen"]):
        name = " ".join(path)
        text = command.get_help(click.Context(command, info_name=name))
        lines = text.splitlines()
        for index, line in enumerate(lines):
            match = re.match(r"\s*Examples?:\s*(.*)$", line)
            if not match:
                continue
            commands = [match.group(1)] if match.group(1) else []
            for following in lines[index + 1 :]:
                if not following.strip().startswith("coursegen "):
                    break
                commands.append(following.strip())
            found += [Command(f"`{name} --help`", f"{name} --help", strip_comment(c)) for c in commands if c]
    return found


def prepared(line: str, used: set[str]) -> str:
    """The line as the test runs it: skipped commands left out of their `&&` chain, rewrites applied."""
    parts = [part.strip() for part in line.split("&&")]
    kept = []
    for part in parts:
        rule = next((pattern for pattern, _ in SKIPPED if re.search(pattern, part)), None)
        if rule is None:
            kept.append(part)
        else:
            used.add(rule)
    line = " && ".join(kept)
    for pattern, replacement, _ in REWRITTEN:
        if line and re.search(pattern, line):
            used.add(pattern)
            return re.sub(pattern, replacement, line)
    for pattern, value, _ in PLACEHOLDERS:
        if re.search(pattern, line):
            used.add(pattern)
            line = re.sub(pattern, value, line)
    return line


# ---- fixtures: the files the documented commands name -----------------------------------------


def course_copy(dest: Path) -> Path:
    shutil.copytree(
        REPO,
        dest,
        ignore=shutil.ignore_patterns(
            ".git",
            "_site",
            ".pytest_cache",
            ".ruff_cache",
            ".mypy_cache",
            "__pycache__",
            "*.egg-info",
            ".benchmarks",
            "*.sqlite*",
            "starter-*",
            "autograder.zip",
        ),
    )
    return dest


def lay_out_fixtures(root: Path, env: dict[str, str]) -> None:
    from coursegen.loader import load_course
    from coursegen.notebooks import notebook_relpath, render_notebooks

    loaded = load_course(root)
    notebooks = render_notebooks(
        loaded, students=True, solutions=True, lessons=["position-sinusoidal", "rope-alibi", "tokens-embeddings"]
    )
    (root / "position-sinusoidal.ipynb").write_bytes(notebooks[notebook_relpath("position-sinusoidal", "en")])
    (root / "rope-alibi.ipynb").write_bytes(notebooks[notebook_relpath("rope-alibi", "en")])
    (root / "my-solution.ipynb").write_bytes(notebooks[notebook_relpath("tokens-embeddings", "en", solution=True)])
    shutil.copy2(root / "solutions" / "rope.py", root / "rope.py")  # a correct file
    shutil.copy2(root / "solutions" / "attention.py", root / "sub.py")  # matched by its names
    for student, source in (
        ("alice", "solutions/rope.py"),
        ("bob", "exercises/tokens.py"),
        ("carol", "solutions/embedding.py"),
        ("dave", "exercises/alibi.py"),
    ):
        (root / "submissions" / student).mkdir(parents=True)
        shutil.copy2(root / source, root / "submissions" / student / Path(source).name)
    (root / "roster.csv").write_text("student\ns123\ns456\n", encoding="utf-8")
    (root / "responses.csv").write_text(documented_responses_csv(), encoding="utf-8")
    (root / "lms.csv").write_text(lms_roster_csv(["alice", "bob", "carol", "dave"]), encoding="utf-8")
    # the second shard the README's `gradebook merge g1.sqlite g2.sqlite` merges
    done = subprocess.run(
        [
            "coursegen",
            "grade",
            "submissions/",
            "--shard",
            "2/4",
            "--seed",
            "7",
            "--gradebook",
            "g2.sqlite",
            "--format",
            "json",
            "-o",
            "g2.json",
        ],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr


def lms_roster_csv(students: list[str]) -> str:
    """The LMS roster `gradebook export --roster lms.csv` reads, in the columns docs/instructors.md
    documents (`student,lms_id` then name, section, SIS ids), one row per student of the fixture's
    submissions/ folder (a graded student missing from it is an error)."""
    text = (REPO / "docs" / "instructors.md").read_text(encoding="utf-8")
    match = re.search(r"`(student,lms_id)` followed by any of `([a-z_,]+)`", text)
    assert match, "docs/instructors.md no longer documents the LMS roster's columns"
    header = [*match.group(1).split(","), *match.group(2).split(",")]
    assert header[:2] == ["student", "lms_id"], header
    values = {
        "lms_id": lambda i, s: str(1001 + i),
        "name": lambda i, s: s.title(),
        "section": lambda i, s: "A",
        "sis_user_id": lambda i, s: f"sis{i + 1}",
        "sis_login_id": lambda i, s: f"{s}@example.edu",
    }
    rows = [[student, *(values[c](i, student) for c in header[1:])] for i, student in enumerate(students)]
    return "".join(",".join(row) + "\n" for row in [header, *rows])


def documented_responses_csv() -> str:
    """The responses CSV that docs/authoring.md shows, used as the `quiz grade` fixture."""
    text = (REPO / "docs" / "authoring.md").read_text(encoding="utf-8")
    match = re.search(r"^```csv\n(student,quiz,question,response\n.*?)^```", text, re.S | re.M)
    assert match, "docs/authoring.md no longer shows a responses CSV"
    return match.group(1)


def docs_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("COURSEGEN_")}
    env.update(
        GIT_AUTHOR_NAME="Docs Test",
        GIT_AUTHOR_EMAIL="docs@example.invalid",
        GIT_COMMITTER_NAME="Docs Test",
        GIT_COMMITTER_EMAIL="docs@example.invalid",
        GIT_CONFIG_NOSYSTEM="1",
        HOME=str(home),
        PYTHONUNBUFFERED="1",
    )
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return env


# ---- running ----------------------------------------------------------------------------------


def run_serve(root: Path, env: dict[str, str]) -> str | None:
    """Start `coursegen serve --port 0`, fetch /, stop it; None when it served, else why not."""
    process = subprocess.Popen(
        ["coursegen", "serve", "--port", "0"],
        cwd=root,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        deadline = time.monotonic() + SERVE_TIMEOUT
        seen = []
        while time.monotonic() < deadline:
            line = process.stdout.readline()
            if not line:
                return f"exited with {process.wait()} before serving:\n" + "".join(seen[-20:])
            seen.append(line)
            match = re.search(r"(http://127\.0\.0\.1:\d+/)", line)
            if match:
                with urllib.request.urlopen(match.group(1), timeout=30) as response:
                    body = response.read()
                return None if response.status == 200 and b"<html" in body.lower() else f"GET / gave {response.status}"
        return "did not start serving in time:\n" + "".join(seen[-20:])
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()


@dataclass(frozen=True)
class Prepared(Command):
    prepared: str = ""


def run_block(commands: list[Command], root: Path, env: dict[str, str], logs: Path) -> list[str]:
    """Run one block's lines in one bash; the failures, each naming where the line is documented."""
    failures = []
    script = ["cd " + json.dumps(str(root))]
    for index, command in enumerate(commands):
        expected = EXPECTED_EXIT.get(command.line, 0)
        script.append(
            f"{{ {command.prepared} ; }} >{logs}/{index}.out 2>{logs}/{index}.err </dev/null; "
            f"rc=$?; echo $rc >{logs}/{index}.rc; [ $rc -eq {expected} ] || exit 0"
        )
    done = subprocess.run(["bash", "-c", "\n".join(script)], env=env, capture_output=True, text=True, timeout=1800)
    for index, command in enumerate(commands):
        rc_file = logs / f"{index}.rc"
        if not rc_file.exists():
            if not failures:  # this line ended the block's shell itself (`exit`, `set -e`)
                failures.append(
                    f"{command.source}: `{command.line}` ended the shell with exit {done.returncode}:\n    "
                    + (logs / f"{index}.err").read_text(errors="replace").strip()[-2000:]
                )
            break
        rc = int(rc_file.read_text())
        if rc != EXPECTED_EXIT.get(command.line, 0):
            tail = (logs / f"{index}.err").read_text(errors="replace") or (logs / f"{index}.out").read_text(
                errors="replace"
            )
            failures.append(
                f"{command.source}: `{command.line}` exited {rc}:\n    "
                + "\n    ".join(tail.strip().splitlines()[-12:])
            )
    return failures


SOURCES = [*(str(p.relative_to(REPO)) for p in DOCUMENTS), "--help"]


def documented(source: str) -> list[Command]:
    return help_examples() if source == "--help" else bash_blocks(REPO / source)


@dataclass
class Workspace:
    root: Path
    env: dict[str, str]
    logs: Path
    seen: set[str]  # lines already run in this session


@pytest.fixture(scope="module")
def workspace(tmp_path_factory) -> Workspace:
    """One copy of the course for every document: built once, the fixtures laid out once."""
    base = tmp_path_factory.mktemp("documented-commands")
    root = course_copy(base / "course")
    (base / "home").mkdir()
    env = docs_env(base / "home")
    lay_out_fixtures(root, env)
    return Workspace(root, env, base / "logs", set())


def test_the_documents_show_commands():
    assert len([c for source in SOURCES for c in documented(source)]) > 40


def test_every_skip_and_rewrite_rule_still_matches_a_documented_command():
    used: set[str] = set()
    for source in SOURCES:
        for command in documented(source):
            prepared(command.line, used)
    unused = [p for p, _ in SKIPPED if p not in used] + [p for p, _, _ in (*REWRITTEN, *PLACEHOLDERS) if p not in used]
    assert unused == [], f"rules that match no documented command any more (remove them): {unused}"


@pytest.mark.parametrize("source", SOURCES)
def test_every_documented_command_runs(source, workspace):
    blocks: dict[str, list[Prepared]] = {}
    for command in documented(source):
        line = prepared(command.line, set())
        if not line or line in workspace.seen:  # the zh sections repeat the en commands: each runs once
            continue
        workspace.seen.add(line)
        blocks.setdefault(command.block, []).append(Prepared(command.source, command.block, command.line, line))

    failures: list[str] = []
    ran = 0
    for name, commands in blocks.items():
        segment: list[Prepared] = []
        for command in [*commands, None]:
            if command is None or command.prepared == "serve":
                if segment:
                    logs = workspace.logs / re.sub(r"\W", "_", name) / str(ran)
                    logs.mkdir(parents=True)
                    failures += run_block(segment, workspace.root, workspace.env, logs)
                    ran += len(segment)
                    segment = []
                if command is not None:
                    problem = run_serve(workspace.root, workspace.env)
                    ran += 1
                    if problem:
                        failures.append(f"{command.source}: `{command.line}` {problem}")
            else:
                segment.append(command)
    assert failures == [], f"{len(failures)} of {ran} documented commands failed:\n" + "\n".join(failures)


# ---- the scanner itself ------------------------------------------------------------------------


def test_comments_are_removed_outside_quotes_only():
    assert strip_comment("coursegen grade a.py   # one file") == "coursegen grade a.py"
    assert strip_comment('git commit -m "fix #3"') == 'git commit -m "fix #3"'
    assert strip_comment("# a whole comment") == ""


def test_skipped_commands_leave_the_rest_of_their_chain():
    used: set[str] = set()
    assert prepared("pip install torch==2.13.0 && pip install -e . && coursegen build", used) == "coursegen build"
    assert prepared("cd s && git init && git push <remote>", used) == "cd s && git init"
    assert prepared("coursegen serve --port 8000", used) == "serve"
    assert (
        prepared("coursegen slides --pdf --lang zh -o h", used)
        == "coursegen slides --pdf --lesson rope-alibi --lang zh -o h"
    )
    assert (
        prepared("coursegen slides --pdf --lesson tokens -o h", used) == "coursegen slides --pdf --lesson tokens -o h"
    )


def test_the_help_examples_are_found():
    sources = {c.source for c in help_examples()}
    assert "`coursegen export gradescope --help`" in sources and "`coursegen export classroom --help`" in sources


def test_a_failing_line_is_reported_with_where_it_is_documented_and_stops_its_block(tmp_path):
    commands = [
        Prepared("docs/x.md:3", "docs/x.md:2", "X=1", "X=1"),
        Prepared(
            "docs/x.md:4",
            "docs/x.md:2",
            "test $X = 1 && echo broken >&2 && exit 3",
            "test $X = 1 && echo broken >&2 && exit 3",
        ),
        Prepared("docs/x.md:5", "docs/x.md:2", "touch never", "touch never"),
    ]
    logs = tmp_path / "logs"
    logs.mkdir()
    failures = run_block(commands, tmp_path, dict(os.environ), logs)
    assert len(failures) == 1 and failures[0].startswith("docs/x.md:4: `test $X = 1") and "exit 3" in failures[0]
    assert "broken" in failures[0] and not (tmp_path / "never").exists()
    failures = run_block([Prepared("a.md:1", "a.md:1", "(exit 4)", "(exit 4)")], tmp_path, dict(os.environ), logs)
    assert failures and "exited 4" in failures[0]


def workflow_run_steps(source: str) -> list[str]:
    """The `run:` commands of a GitHub Actions workflow (`jobs: NAME: steps: - run: ...`), or []
    when the YAML is not a workflow."""
    from ruamel.yaml import YAML, YAMLError

    try:
        document = YAML(typ="safe").load(source)
    except YAMLError:  # an excerpt with `...` where lines are left out: not a workflow
        return []
    jobs = document.get("jobs") if isinstance(document, dict) else None
    if not isinstance(jobs, dict):
        return []
    return [
        str(step["run"])
        for job in jobs.values()
        if isinstance(job, dict)
        for step in job.get("steps") or []
        if isinstance(step, dict) and "run" in step
    ]


def test_commands_are_shown_only_in_bash_blocks_so_none_escapes_this_test():
    """A command in a ```sh / ```console / untagged fence would not be run: show it as ```bash.

    Exempt: the `run:` steps of a GitHub Actions workflow shown as a ```yaml block. They are not
    lines a user types (they use `${{ matrix.* }}` / `${{ secrets.* }}`, which only the Actions
    runner expands, on its machines); tests/grader/test_docs_grading_at_scale.py parses the
    workflow and checks its commands' options against the CLI."""
    escaped = []
    for path in DOCUMENTS:
        text = path.read_text(encoding="utf-8")
        for match in re.finditer(r"^```([\w-]*)\n(.*?)^```", text, re.S | re.M):
            if match.group(1) == "bash":
                continue
            steps = workflow_run_steps(match.group(2)) if match.group(1) in ("yaml", "yml") else []
            for offset, line in enumerate(match.group(2).splitlines()):
                if any(line.strip() in step for step in steps):
                    continue
                if re.match(r"\s*(\$ )?(coursegen|python|pip|git) ", line):
                    escaped.append(
                        f"{path.relative_to(REPO)}:{text[: match.start()].count(chr(10)) + 2 + offset}: {line}"
                    )
    assert escaped == []
