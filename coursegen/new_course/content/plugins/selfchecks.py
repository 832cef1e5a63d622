"""The notebook's public self-checks: small inputs, and properties stated for the student."""
from __future__ import annotations

from coursegen.plugin import Case, Property, SelfCheckSpec, selfchecks

selfchecks(
    SelfCheckSpec("dot", cases=(
        Case({"en": "two short vectors", "zh": "两个短向量"},
             "return dot([1.0, 2.0, 3.0], [4.0, 5.0, 6.0])"),
    ), properties=(
        Property({"en": "the dot product is symmetric", "zh": "点积满足交换律"},
                 "import random\nr = random.Random(0)\na = [r.uniform(-1, 1) for _ in range(5)]\n"
                 "b = [r.uniform(-1, 1) for _ in range(5)]\n_expect_close(dot(a, b), dot(b, a))"),
    )),
)
