"""Typical mistakes in center.py."""
from __future__ import annotations

from grader.contract import mistake


@mistake(target="mean", id="mean-of-everything", hint={
    "en": "You averaged every value of the tensor into one number; the mean is taken over the last "
          "dimension only, one mean per row: sum along dim=-1, then divide by that dimension's length.",
    "zh": "你把整个张量的所有值平均成了一个数；均值只沿最后一维计算，每一行一个均值："
          "沿 dim=-1 求和，再除以这一维的长度。"})
def mean(x):
    return x.sum() / x.numel()


@mistake(target="median", id="median-lower-middle", hint={
    "en": "For an even number of values you returned the lower of the two middle values (torch.median "
          "does this); the median is the mean of the two middle values of the sorted row.",
    "zh": "值的个数为偶数时，你返回了两个中间值里较小的那个（torch.median 就是这样做的）；"
          "中位数是排序后两个中间值的平均。"})
def median(x):
    return x.median(dim=-1).values
