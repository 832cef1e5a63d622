"""GIFT markup the question kinds write their answers with: escaping and bilingual HTML text
(coursegen.quiz.exports.gift assembles the file)."""

from __future__ import annotations

from ..text import html_tex, moodle_multilang

SPECIAL = "~=#{}:"


def escape(text: str) -> str:
    text = text.replace("\\", "\\\\")
    for char in SPECIAL:
        text = text.replace(char, "\\" + char)
    return text.replace("\r", "").replace("\n", "\\n")


def html_text(text: dict, inline: bool = False) -> str:
    return escape(moodle_multilang(text, lambda s: html_tex(s, inline=inline)))
