"""Every way student code can fail becomes one plain sentence, and the grader carries on."""

from __future__ import annotations

import pytest
import torch

from grader.sandbox import CandidateError, RemoteObject, SubmissionLoadError


def failure(candidate, name, *args) -> CandidateError:
    with pytest.raises(CandidateError) as info:
        candidate.call(name, *args)
    return info.value


# ---- at import ------------------------------------------------------------------------------


def test_syntax_error_names_the_line(sandbox):
    with pytest.raises(SubmissionLoadError, match=r"failed to import: SyntaxError at line 3"):
        sandbox.load("x = 1\ny = 2\nz = = 3\n")


def test_exception_at_import_names_type_line_and_message(sandbox):
    with pytest.raises(SubmissionLoadError, match=r"ValueError at line 2: bad start"):
        sandbox.load("import torch\nraise ValueError('bad start')\n")


@pytest.mark.parametrize(
    "statement, code", [("import sys; sys.exit(0)", 0), ("import os; os._exit(3)", 3), ("raise SystemExit(5)", 5)]
)
def test_exit_at_import_is_reported_with_its_code(sandbox, statement, code):
    with pytest.raises(SubmissionLoadError, match=rf"ended the process \(exit code {code}\) at import") as info:
        sandbox.load(statement + "\n")
    assert info.value.kind == "exited"


@pytest.mark.slow  # seconds of work: the slow lane (.ci/run runs it)
def test_endless_import_is_stopped(sandbox):
    with pytest.raises(SubmissionLoadError, match=r"ran longer than 3 s at import"):
        sandbox.load("while True:\n    pass\n")


def test_load_error_speaks_chinese_when_asked(sandbox_zh):
    with pytest.raises(SubmissionLoadError, match="导入失败"):
        sandbox_zh.load("x = = 1\n")


# ---- inside a call --------------------------------------------------------------------------


def test_exception_in_call_names_function_type_and_message(load):
    error = failure(load("def f():\n    raise ValueError('x must be 4-D')\n"), "f")
    assert error.kind == "raised" and str(error) == "f raised ValueError: x must be 4-D"


def test_long_exception_message_is_truncated(load):
    error = failure(load("def f():\n    raise ValueError('z' * 100000)\n"), "f")
    assert len(str(error)) < 300


def test_control_characters_in_messages_are_removed(load):
    error = failure(load("def f():\n    raise ValueError('a\\n\\x1b[31mb\\rc')\n"), "f")
    assert "\n" not in str(error) and "\x1b" not in str(error)


def test_unusable_return_value_is_named(load):
    error = failure(load("def f():\n    return object()\n"), "f")
    assert error.kind == "returned" and "returned a object where a tensor or number was expected" in str(error)


def test_sys_exit_in_call_is_reported_and_child_keeps_serving(load):
    candidate = load("import sys\ndef f():\n    sys.exit(0)\ndef g():\n    return 1\n")
    error = failure(candidate, "f")
    assert error.kind == "exited" and "exit code 0" in str(error)
    assert candidate.g() == 1


@pytest.mark.parametrize("exception", ["KeyboardInterrupt", "GeneratorExit", "type('Custom', (BaseException,), {})"])
def test_base_exceptions_in_call_are_plain_failures(load, exception):
    error = failure(load(f"def f():\n    raise {exception}()\n"), "f")
    assert error.kind == "raised"


def test_os_exit_in_call_reports_exit_code(load):
    error = failure(load("import os\ndef f():\n    os._exit(0)\n"), "f")
    assert error.kind == "exited" and str(error) == "your code ended the process (exit code 0) in f"


def test_segfault_reports_the_signal(load):
    error = failure(load("import ctypes\ndef f():\n    ctypes.string_at(0)\n"), "f")
    assert error.kind == "crashed" and "signal 11" in str(error)


def test_endless_call_is_stopped_after_the_wall_time(load):
    error = failure(load("def f():\n    while True:\n        pass\n"), "f")
    assert error.kind == "timeout" and str(error) == "your code ran longer than 2 s in f"


@pytest.mark.slow  # seconds of work: the slow lane (.ci/run runs it)
def test_sleep_is_stopped_after_the_wall_time(load):
    error = failure(load("import time\ndef f():\n    time.sleep(60)\n"), "f")
    assert error.kind == "timeout"


def test_cpu_time_limit_ends_a_busy_child(load):
    candidate = load("def f():\n    while True:\n        pass\n", cpu_seconds=1, call_seconds=6)
    error = failure(candidate, "f")
    assert error.kind == "cpu" and "CPU time" in str(error)


def test_huge_tensor_allocation_is_a_memory_error(load):
    error = failure(load("import torch\ndef f():\n    return torch.empty(5 * 10**9).sum()\n"), "f")
    assert error.kind == "memory" and "more than 300 MB of memory in f" in str(error)


def test_huge_python_allocation_is_a_memory_error(load):
    error = failure(load("def f():\n    return len(bytearray(20 * 2**30))\n"), "f")
    assert error.kind == "memory"


def test_big_file_hits_the_file_size_limit(load):
    error = failure(load("def f():\n    open('big.bin', 'wb').write(bytes(4 * 2**20))\n"), "f")
    assert error.kind == "file_size"


def test_flood_of_output_hits_the_output_limit(load):
    candidate = load("def f():\n    while True:\n        print('x' * 10000)\n")
    error = failure(candidate, "f")
    assert error.kind == "output" and "output limit exceeded" in str(error)
    assert len(candidate.output) <= 16 * 1024


def test_output_past_the_cap_at_import_read_late_is_the_students_not_the_sandboxs(sandbox):
    """A look-ahead reads the child's "ready" late: by then the module has printed past the cap.
    That is the student's output (a load failure graded 0), never a sandbox failure (which would
    stop the whole batch)."""
    import time

    candidate = sandbox.load_ahead("print('x' * 400_000)\ndef f():\n    return 1\n")
    try:
        time.sleep(1.0)  # the grader grades another submission meanwhile
        with pytest.raises(SubmissionLoadError) as info:
            candidate.wait_loaded()
        assert info.value.kind == "output" and "output limit exceeded" in str(info.value)
    finally:
        candidate.close()
    with sandbox.load("def f():\n    return 2\n") as healthy:  # the sandbox carries on
        assert healthy.f() == 2


def test_deep_recursion_is_a_plain_failure(load):
    error = failure(load("def f(n=0):\n    return f(n + 1)\n"), "f")
    assert error.kind == "raised" and "RecursionError" in str(error)


# ---- after a fatal error --------------------------------------------------------------------


def test_next_call_after_a_crash_runs_in_a_fresh_child(load):
    candidate = load(
        "import os\nCOUNT = [0]\ndef crash():\n    os._exit(1)\ndef count():\n    COUNT[0] += 1\n    return COUNT[0]\n"
    )
    assert candidate.count() == 1
    failure(candidate, "crash")
    assert candidate.count() == 1  # module state starts over in the fresh child


def test_objects_of_a_dead_child_are_reported_lost(load):
    candidate = load("import os\nclass A:\n    def get(self):\n        return 1\ndef crash():\n    os._exit(1)\n")
    obj = candidate.A()
    assert isinstance(obj, RemoteObject)
    failure(candidate, "crash")
    with pytest.raises(CandidateError, match="lost") as info:
        obj.call("get")
    assert info.value.kind == "gone"


def test_restarts_are_capped(load):
    candidate = load("import os\ndef crash():\n    os._exit(1)\n", max_restarts=2)
    kinds = [failure(candidate, "crash").kind for _ in range(4)]
    assert kinds == ["exited", "exited", "exited", "gone"]


def test_call_limit_message_speaks_chinese(sandbox_zh):
    with sandbox_zh.load("def f():\n    raise ValueError('x')\n") as candidate:
        with pytest.raises(CandidateError, match="抛出了 ValueError"):
            candidate.f()


def test_grader_tensor_arguments_are_not_modified_by_the_child(load):
    candidate = load("def f(x):\n    x.mul_(0)\n    return x\n")
    x = torch.ones(3)
    assert torch.equal(candidate.f(x), torch.zeros(3)) and torch.equal(x, torch.ones(3))


def test_total_time_of_a_submission_is_capped(load):
    candidate = load("import time\ndef slow():\n    time.sleep(0.4)\n    return 1\n", total_seconds=1.0)
    outcomes = []
    for _ in range(5):
        try:
            outcomes.append(candidate.slow())
        except CandidateError as error:
            outcomes.append(error.kind)
    assert outcomes[:2] == [1, 1] and outcomes[-1] == "timeout"
    with pytest.raises(CandidateError, match="longer than 1 s in total"):
        candidate.slow()


def test_closing_the_connection_but_running_on_is_a_clear_failure(load):
    candidate = load("import os, time\ndef f():\n    os.close(3)\n    time.sleep(30)\n")
    error = failure(candidate, "f")
    assert error.kind == "garbled" and "broke the sandbox" in str(error)
