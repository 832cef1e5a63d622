"""The notebooks' public self-checks: small fixed inputs, and properties stated for the student."""
from __future__ import annotations

from coursegen.plugin import Case, Property, SelfCheckSpec, selfchecks


def _t(en: str, zh: str) -> dict[str, str]:
    return {"en": en, "zh": zh}


selfchecks(
    SelfCheckSpec("mean", cases=(
        Case(_t("one row of five values", "一行五个值"), "return mean(torch.tensor([2.0, 3.0, 3.0, 4.0, 8.0]))"),
        Case(_t("two rows: one mean per row", "两行：每行一个均值"),
             "return mean(torch.tensor([[1.0, 2.0, 3.0], [10.0, 20.0, 60.0]]))"),
    ), properties=(
        Property(_t("adding c to every value adds c to the mean", "每个值都加上 c，均值也加上 c"),
                 "x = torch.randn(4, 6)\n_expect_close(mean(x + 5.0), mean(x) + 5.0)"),
    )),
    SelfCheckSpec("median", cases=(
        Case(_t("an odd count", "奇数个值"), "return median(torch.tensor([7.0, 1.0, 3.0]))"),
        Case(_t("an even count", "偶数个值"), "return median(torch.tensor([4.0, 1.0, 3.0, 10.0]))"),
    ), properties=(
        Property(_t("one very large value does not move the median", "一个极大的值不会移动中位数"),
                 "x = torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0])\n"
                 "y = torch.tensor([1.0, 2.0, 3.0, 4.0, 500.0])\n"
                 "_expect_close(median(y), median(x))"),
    )),
    SelfCheckSpec("variance", cases=(
        Case(_t("population variance", "总体方差"), "return variance(torch.tensor([2.0, 4.0, 4.0, 5.0, 7.0, 8.0]))"),
        Case(_t("sample variance (ddof=1)", "样本方差（ddof=1）"),
             "return variance(torch.tensor([2.0, 4.0, 4.0, 5.0, 7.0, 8.0]), ddof=1)"),
    ), properties=(
        Property(_t("a constant row has variance 0", "所有值相同的一行方差为 0"),
                 "_expect_close(variance(torch.full((2, 5), 3.0)), torch.zeros(2))"),
        Property(_t("one value with ddof=1 raises ValueError", "只有一个值且 ddof=1 时应引发 ValueError"),
                 "_expect_raises(ValueError, lambda: variance(torch.tensor([1.0]), ddof=1))"),
    )),
)
