"""Answer functions of the course's generated questions: keys computed with the references."""
from __future__ import annotations

from coursegen.plugin import Generated, Wrong, answer_function, from_mistakes, reference


@answer_function("dot_value", kind="number")
def dot_value(a1: int, a2: int, b1: int, b2: int) -> Generated:
    """a . b for a = [a1, a2], b = [b1, b2]."""
    import torch

    a, b = torch.tensor([float(a1), float(a2)]), torch.tensor([float(b1), float(b2)])
    wrong = from_mistakes("dot", lambda dot: float(dot(a, b).sum()))
    wrong["sum-of-entries"] = Wrong(float(a1 + a2 + b1 + b2))
    return Generated(float(reference("dot")(a, b)), wrong)


@answer_function("squared_length", kind="number")
def squared_length(a1: int, a2: int, a3: int) -> Generated:
    """|a|^2 = a . a for a = [a1, a2, a3]."""
    import torch

    a = torch.tensor([float(a1), float(a2), float(a3)])
    wrong = {"length": Wrong(float(a.norm())), "sum": Wrong(float(a1 + a2 + a3))}
    return Generated(float(reference("dot")(a, a)), wrong)


@answer_function("scaled_dot", kind="number")
def scaled_dot(k: int, a1: int, a2: int, b1: int, b2: int) -> Generated:
    """(k a) . b for a = [a1, a2], b = [b1, b2]."""
    import torch

    a, b = torch.tensor([float(a1), float(a2)]), torch.tensor([float(b1), float(b2)])
    wrong = {"unscaled": Wrong(float(reference("dot")(a, b))), "squared-k": Wrong(float(k * k * (a1 * b1 + a2 * b2)))}
    return Generated(float(reference("dot")(k * a, b)), wrong)
