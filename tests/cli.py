"""The tests' one way to run the command line: `coursegen ...` in this process.

    from tests.cli import run_cli
    result = run_cli("quiz", "show", "--root", course, "-l", "mini", expect=0)
    result.exit_code, result.stdout, result.stderr, result.output

It invokes coursegen.cli.main as `coursegen` through click's CliRunner (arguments may be
paths: they are passed as text), in `cwd` when given, with `env` laid over the environment for
the call, and lets an exception the program does not handle end the test with its traceback.
`expect` checks the exit status and shows what the command printed when it differs.

A test runs the real process (subprocess) only when the process is its point: the installed
command's exit status, a signal, a clean environment, what the interpreter does at exit. Such
a test says so where it spawns it.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping
from pathlib import Path

from click.testing import CliRunner, Result

from coursegen.cli import main


class Ran:
    """What one command did: its exit status (`exit_code`, also as `returncode` like a finished
    process) and what it wrote (`stdout`, `stderr`, and `output`, both interleaved)."""

    def __init__(self, result: Result):
        self.result = result
        self.exit_code = result.exit_code
        self.returncode = result.exit_code
        self.stdout = result.stdout
        self.stderr = result.stderr
        self.output = result.output

    def __repr__(self) -> str:
        return f"<coursegen exited {self.exit_code}>\n--- stdout\n{self.stdout}\n--- stderr\n{self.stderr}"


def run_cli(
    *args: str | Path,
    cwd: str | Path | None = None,
    env: Mapping[str, str | None] | None = None,
    input: str | bytes | None = None,
    expect: int | None = None,
) -> Ran:
    """Run `coursegen *args` in this process; with `expect`, assert its exit status."""
    runner = CliRunner()
    place = contextlib.chdir(cwd) if cwd is not None else contextlib.nullcontext()
    with place:
        result = runner.invoke(
            main, [os.fspath(a) for a in args], input=input, env=env, catch_exceptions=False, prog_name="coursegen"
        )
    ran = Ran(result)
    if expect is not None:
        assert ran.exit_code == expect, f"coursegen {' '.join(map(str, args))}: expected exit {expect}\n{ran!r}"
    return ran
