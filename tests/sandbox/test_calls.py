"""Calling into the child: values cross as data, classes become RemoteObjects."""

from __future__ import annotations

import math

import pytest
import torch

from grader.sandbox import CandidateError, RemoteObject

IDENTITY = """
import torch
def echo(*args, **kwargs):
    return (list(args), kwargs) if kwargs else (args[0] if len(args) == 1 else list(args))
def double(x):
    return x * 2
"""


def test_function_result_is_a_plain_parent_tensor(load):
    candidate = load(IDENTITY)
    x = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    y = candidate.double(x)
    assert type(y) is torch.Tensor and torch.equal(y, x * 2)


@pytest.mark.parametrize(
    "dtype",
    [
        torch.float16,
        torch.bfloat16,
        torch.float32,
        torch.float64,
        torch.complex64,
        torch.complex128,
        torch.int8,
        torch.uint8,
        torch.int16,
        torch.int32,
        torch.int64,
        torch.bool,
    ],
)
def test_every_dtype_survives_the_round_trip(load, dtype):
    candidate = load(IDENTITY)
    x = (torch.arange(12) % 3).to(dtype).reshape(3, 4)
    y = candidate.echo(x)
    assert y.dtype == dtype and y.shape == x.shape and torch.equal(y, x)


def test_empty_and_scalar_tensors_survive(load):
    candidate = load(IDENTITY)
    assert candidate.echo(torch.empty(0, 3)).shape == (0, 3)
    assert candidate.echo(torch.tensor(2.5)).item() == 2.5


def test_nan_and_infinity_survive_in_tensors_and_floats(load):
    candidate = load(IDENTITY)
    y = candidate.echo(torch.tensor([math.nan, math.inf, -math.inf]))
    assert math.isnan(y[0]) and y[1] == math.inf and y[2] == -math.inf
    assert math.isnan(candidate.echo(math.nan))


def test_nested_python_values_keep_their_types(load):
    candidate = load(IDENTITY)
    value = {"a": [1, 2.0, None, True], (1, 2): ("x", {"y": False})}
    assert candidate.echo(value) == value


def test_keyword_arguments_reach_the_function(load):
    candidate = load(IDENTITY)
    args, kwargs = candidate.echo(1, positions=torch.arange(3))
    assert args == [1] and torch.equal(kwargs["positions"], torch.arange(3))


def test_tensor_subclass_result_arrives_as_plain_tensor(load):
    candidate = load("""
        import torch
        class Sneaky(torch.Tensor):
            def __eq__(self, other):
                return True
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                return True
        def f():
            return torch.ones(2).as_subclass(Sneaky)
    """)
    y = candidate.f()
    assert type(y) is torch.Tensor and torch.equal(y, torch.ones(2))


def test_numpy_scalar_result_becomes_a_number(load):
    candidate = load("import numpy\ndef f():\n    return numpy.float64(1.5)\n")
    assert candidate.f() == 1.5


def test_class_call_returns_remote_object_with_parameters(load):
    candidate = load("""
        import torch
        class Tied(torch.nn.Module):
            def __init__(self, v, d):
                super().__init__()
                self.token_embedding = torch.nn.Embedding(v, d)
                self.lm_head = torch.nn.Linear(d, v, bias=False)
                self.lm_head.weight = self.token_embedding.weight
            def forward(self, ids):
                return self.lm_head(self.token_embedding(ids))
            def scale(self, k):
                return k * 2
    """)
    model = candidate.Tied(5, 3)
    assert isinstance(model, RemoteObject)
    assert model.parameters() == [("token_embedding.weight", (5, 3))]
    weight = torch.randn(5, 3)
    model.set("token_embedding.weight", weight)
    assert torch.equal(model.get("lm_head.weight"), weight)
    ids = torch.tensor([[0, 4]])
    assert torch.allclose(model(ids), weight[ids] @ weight.T)
    assert model.call("scale", 4) == 8


def test_remote_object_can_be_passed_back_as_an_argument(load):
    candidate = load("""
        class Box:
            def __init__(self, v):
                self.v = v
        def unbox(box):
            return box.v
    """)
    assert candidate.unbox(candidate.Box(7)) == 7


def test_names_kinds_and_has_describe_the_module(load):
    candidate = load("import torch\nclass A:\n    pass\ndef f():\n    pass\nX = 3\n")
    assert {"A", "f", "X", "torch"} <= candidate.names()
    assert candidate.has("f") and not candidate.has("g")
    assert (candidate.kind("A"), candidate.kind("f"), candidate.kind("X")) == ("class", "function", "other")


def test_module_is_named_after_the_file_and_main_block_does_not_run(load):
    candidate = load("def name():\n    return __name__\nif __name__ == '__main__':\n    input()\n", filename="rope.py")
    assert candidate.name() == "rope"


def test_missing_function_is_a_clear_error(load):
    candidate = load("def f():\n    pass\n")
    with pytest.raises(CandidateError, match="does not define apply_rope") as info:
        candidate.apply_rope(torch.ones(1))
    assert info.value.kind == "missing"


def test_printed_output_is_captured(load):
    candidate = load("print('hello at import')\ndef f():\n    print('hello from f')\n")
    candidate.f()
    assert "hello at import" in candidate.output and "hello from f" in candidate.output


def test_environment_variable_overrides_limits(monkeypatch):
    from grader.sandbox import Limits

    monkeypatch.setenv("COURSEGEN_SANDBOX_LIMITS", "call_seconds=1.5, output_kb=8")
    limits = Limits().with_environment()
    assert (limits.call_seconds, limits.output_kb, limits.memory_mb) == (1.5, 8, Limits().memory_mb)


def test_bad_limits_environment_variable_names_the_problem(monkeypatch):
    from grader.sandbox import Limits

    monkeypatch.setenv("COURSEGEN_SANDBOX_LIMITS", "call_secs=1")
    with pytest.raises(ValueError, match="call_secs=1.*expected NAME=NUMBER"):
        Limits().with_environment()
