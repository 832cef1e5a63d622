"""Fuzzing through the real sandbox: random submission bytes, random Python, random values
returned by the child, and garbage written onto the child's end of the wire. The grader
always gets a value, a SubmissionLoadError or a CandidateError, and stays usable."""

from __future__ import annotations

import math

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grader.sandbox import CandidateError, SubmissionLoadError

SETTINGS = settings(
    max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)


def still_works(sandbox) -> None:
    with sandbox.load("def ok():\n    return 41 + 1\n") as candidate:
        assert candidate.ok() == 42


def load_and_call(sandbox, code: str, name: str = "f"):
    try:
        with sandbox.load(code) as candidate:
            try:
                return candidate.call(name)
            except CandidateError as error:
                assert str(error) and "\n" not in str(error)
                return error
    except SubmissionLoadError as error:
        assert str(error).startswith("your code")
        return error


@SETTINGS
@given(st.binary(max_size=300))
def test_random_bytes_as_submission(sandbox, data):
    load_and_call(sandbox, data.decode("utf-8", "replace"))


SNIPPETS = [
    "import os",
    "import sys",
    "import torch",
    "x = 1",
    "def f():\n    return x",
    "def f():\n    return torch.ones(2)",
    "raise ValueError('v')",
    "sys.exit(3)",
    "print('p' * 100)",
    "class f:\n    pass",
    "f = 3",
    "del x",
    "def f():\n    return [f, 1]",
    "def f():\n    return {1: torch.zeros(0)}",
    "import math\nx = math.nan",
    "def f():\n    return (None, True, 'ß' * 10)",
    "os.close(3)",
    "def f():\n    os.write(3, b'\\xff' * 64)",
    "def f():\n    return torch.empty(3, dtype=torch.float16)",
    "while False:\n    pass",
    "x = 1 /",
    "def f():\n    raise KeyboardInterrupt",
    "import numpy\ndef f():\n    return numpy.arange(3)",
]


@SETTINGS
@given(st.lists(st.sampled_from(SNIPPETS), max_size=6))
def test_random_python_from_snippets(sandbox, parts):
    load_and_call(sandbox, "\n".join(parts) + "\n")
    still_works(sandbox)


DTYPES = ["float16", "bfloat16", "float32", "float64", "complex64", "int8", "uint8", "int32", "int64", "bool"]
FILLS = ["torch.nan", "torch.inf", "-torch.inf", "1e300", "0", "-1", "3.5"]


@SETTINGS
@given(
    st.sampled_from(DTYPES),
    st.lists(st.integers(min_value=0, max_value=6), max_size=4),
    st.sampled_from(FILLS),
    st.booleans(),
)
def test_random_tensor_results_arrive_as_plain_tensors(sandbox, dtype, shape, fill, transposed):
    code = (
        f"import torch\ndef f():\n    t = torch.full({tuple(shape)}, {fill}).to(torch.{dtype})\n"
        f"    return t.mT if {transposed} and t.dim() >= 2 else t\n"
    )
    result = load_and_call(sandbox, code)
    if isinstance(result, torch.Tensor):
        expected = torch.full(tuple(shape), float(eval(fill, {"torch": torch}))).to(getattr(torch, dtype))
        if transposed and expected.dim() >= 2:
            expected = expected.mT
        assert type(result) is torch.Tensor and result.dtype == expected.dtype and result.shape == expected.shape
        assert torch.equal(result.isnan(), expected.isnan()) if result.is_floating_point() else True
    else:
        assert isinstance(result, CandidateError)


@SETTINGS
@given(st.binary(min_size=1, max_size=200), st.booleans())
def test_garbage_on_the_wire_is_a_clean_error(sandbox, garbage, then_return):
    code = f"import os\ndef f():\n    os.write(3, {garbage!r})\n" + (
        "    return 1\n" if then_return else "    os._exit(0)\n"
    )
    result = load_and_call(sandbox, code)
    assert result == 1 or isinstance(result, CandidateError)
    still_works(sandbox)


@pytest.mark.slow  # seconds of work: the slow lane (.ci/run runs it)
@SETTINGS
@given(st.integers(min_value=0, max_value=2**32 - 1), st.integers(min_value=0, max_value=2**32 - 1))
def test_forged_frame_headers_are_a_clean_error(short_call_sandbox, json_len, blob_len):
    code = (
        "import os, struct\ndef f():\n"
        f"    os.write(3, struct.pack('>II', {json_len}, {blob_len}) + b'{{\"ok\": 1}}')\n    return 2\n"
    )
    result = load_and_call(short_call_sandbox, code)
    assert result in (1, 2) or isinstance(result, CandidateError)


def test_nan_float_result_is_a_float(sandbox):
    result = load_and_call(sandbox, "def f():\n    return float('nan')\n")
    assert math.isnan(result)
