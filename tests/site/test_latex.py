"""Math below the level of a whole build: LaTeX checked against the commands the MathML converter
knows, with the offset of what it does not know; display math as block MathML."""

from __future__ import annotations

from coursegen.mathml import check_latex, to_mathml


def test_common_latex_is_accepted():
    for latex in [
        r"\mathrm{softmax}(q k^\top / \sqrt{d})",
        r"\begin{pmatrix} a & b \\ c & d \end{pmatrix}",
        r"PE_{(pos, 2i)} = \sin\left(pos / 10000^{2i/d}\right)",
        r"\operatorname{RoPE}(x)_m",
        r"\mathbb{R}^{B \times S \times D}",
        r"\text{logits} = h W^\top",
    ]:
        assert check_latex(latex) == [], latex


def test_unknown_command_and_environment_are_reported_with_their_offset():
    assert check_latex(r"x + \sofmax(y)") == [
        (4, "unknown LaTeX command '\\sofmax' (not supported by the MathML converter)")
    ]
    assert check_latex(r"\begin{matrx} a \end{matrx}") == [(0, "unknown LaTeX environment 'matrx'")]


def test_text_inside_text_commands_is_not_checked_as_commands():
    assert check_latex(r"\text{see \S 3}") == []


def test_display_math_becomes_block_mathml():
    assert to_mathml("x", display=True).startswith('<math xmlns="http://www.w3.org/1998/Math/MathML" display="block">')
