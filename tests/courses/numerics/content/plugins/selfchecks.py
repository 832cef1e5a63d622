"""The notebooks' public self-checks: small fixed inputs, and properties stated for the student."""
from __future__ import annotations

from coursegen.plugin import Case, Property, SelfCheckSpec, selfchecks


def _t(en: str, zh: str) -> dict[str, str]:
    return {"en": en, "zh": zh}


selfchecks(
    SelfCheckSpec("trapezoid", cases=(
        Case(_t("x squared on [0, 1], 4 trapezoids", "x 的平方在 [0, 1] 上，4 个梯形"),
             "return trapezoid(lambda x: x * x, 0.0, 1.0, 4)"),
        Case(_t("abs on [-1, 2], 3 trapezoids", "abs 在 [-1, 2] 上，3 个梯形"),
             "return trapezoid(abs, -1.0, 2.0, 3)"),
    ), properties=(
        Property(_t("a straight line is integrated exactly", "直线的积分是精确的"),
                 "_expect_close(trapezoid(lambda x: 3 * x + 1, 0.0, 2.0, 3), 8.0)"),
    )),
    SelfCheckSpec("cumulative_trapezoid", cases=(
        Case(_t("four samples of x squared", "x 平方的四个采样值"),
             "return cumulative_trapezoid(numpy.array([0.0, 1.0, 4.0, 9.0]), 1.0)"),
    ), properties=(
        Property(_t("the last entry is the trapezoid rule", "最后一项就是梯形法则"),
                 "y = numpy.array([1.0, 2.0, 0.5, 3.0])\n_expect_close(float(cumulative_trapezoid(y, 0.5)[-1]), 0.5 * (0.5 + 2.0 + 0.5 + 1.5))"),
    )),
)
