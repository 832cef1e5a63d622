"""Answer functions of the course's generated questions: keys computed with the references."""
from __future__ import annotations

from coursegen.plugin import Generated, Wrong, answer_function, reference


@answer_function("dot_value", kind="number")
def dot_value(a1: int, a2: int, b1: int, b2: int) -> Generated:
    """a . b for a = [a1, a2], b = [b1, b2]."""
    # a distractor per typical wrong answer; from_mistakes(target, compute) turns catalogued mistakes into
    # distractors when they give a number (dot-no-sum gives a list: nothing to offer here)
    wrong = {"sum-of-entries": Wrong(float(a1 + a2 + b1 + b2))}
    return Generated(float(reference("dot")([float(a1), float(a2)], [float(b1), float(b2)])), wrong)
