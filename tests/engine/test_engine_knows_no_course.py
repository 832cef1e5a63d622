"""The engine (coursegen/, grader/ outside grader/checks/, its default templates, the cli entry
point) names nothing of the repository's own course, in code, comments, strings or templates: no
exercise, module, answer function, figure, self-check, mistake, lesson or key term of it, and none
of its topic words. The names are data (first_course_names.json), so the scan runs without the
course; tests/course/test_first_course_names.py proves the data lists every name the course's
sources define, so a name the course adds tomorrow is forbidden in the engine the same day."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from first_course_names import KNOWN_LEFTOVERS, REPO, TOPIC_WORDS, TOPIC_WORDS_ZH, course_names, words_of

TEXT_SUFFIXES = {".py", ".html", ".js", ".css", ".md", ".yaml", ".yml", ".json", ".txt", ".toml", ".cfg"}

# Names of the course that are also ordinary programming words, which the engine uses in that
# sense. They are forbidden only where an exercise of that name would stand: quoted ("encode").
GENERIC = {
    "encode": "str.encode and the wire codec's Encoder.encode",
    "tokens": "Python tokens counted by the submission reader, Markdown tokens, isolation tokens",
    "token": "a Markdown token, an isolation token",
    "positions": "the positions of YAML keys (yamlio) and of bars in report plots",
    "positional": "positional arguments",
}


def engine_files() -> list[Path]:
    from coursegen.pages import PACKAGE_TEMPLATES

    roots = [REPO / "coursegen", REPO / "grader", PACKAGE_TEMPLATES]
    files = {REPO / "cli.py"}
    for root in roots:
        for path in root.rglob("*"):
            # assets/vendor/ holds third-party libraries copied unchanged from their packages (reveal.js,
            # whose notes plugin bundles a Markdown tokenizer): not the engine's words.
            if path.is_file() and path.suffix in TEXT_SUFFIXES and not {"__pycache__", "vendor"} & set(path.parts):
                files.add(path.resolve())  # the templates once, where they lie (coursegen/templates links them)
    checks = REPO / "grader" / "checks"
    return sorted(p for p in files if checks not in p.parents)


def forbidden() -> dict[str, str]:
    words = {name.lower(): what for name, what in course_names().items()}
    words.update({word: "topic word of the course" for word in TOPIC_WORDS})
    return words


def findings(path: Path, words: dict[str, str], root: Path = REPO) -> list[str]:
    """`file:line: 'word' (what it is in the course): line` for every forbidden word of one file."""
    found = []
    for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
        for word, parts in words_of(line):
            hit = next((w for w in (word, *parts) if w.lower() in words and not generic_use(w, line, words)), None)
            if hit is not None:
                found.append(f"{path.relative_to(root)}:{number}: '{hit}' ({words[hit.lower()]}): {line.strip()[:100]}")
        for word in TOPIC_WORDS_ZH:
            if word in line and (path.relative_to(root).as_posix(), word) not in KNOWN_LEFTOVERS:
                found.append(
                    f"{path.relative_to(root)}:{number}: '{word}' (topic word of the course): {line.strip()[:100]}"
                )
    return found


def generic_use(word: str, line: str, words: dict[str, str]) -> bool:
    """A GENERIC word used as the plain word, not as the course's exercise of that name."""
    if word.lower() not in GENERIC:
        return False
    quoted = re.search(rf"[\"'`]{re.escape(word)}[\"'`]", line)
    return not (quoted and words[word.lower()] == "exercise")


def test_the_scan_finds_a_course_name_in_code_a_string_and_a_template(tmp_path):
    words = forbidden()
    probe = tmp_path / "probe.py"
    probe.write_text('x = 1  # calls apply_rope\ny = "see lesson rope-alibi"\nz = "encode"\nw = s.encode()\n')
    assert [line.split(": ")[1] for line in findings(probe, words, tmp_path)] == [
        "'apply_rope' (exercise)",
        "'rope-alibi' (lesson id)",
        "'encode' (exercise)",
    ]
    page = tmp_path / "page.html"
    page.write_text('<input placeholder="e.g. RoPE">\n<p>例如 位置编码</p>\n')
    assert len(findings(page, words, tmp_path)) == 2


@pytest.mark.parametrize("kind", ["coursegen", "grader", "templates", "cli.py"])
def test_the_engine_names_nothing_of_the_course(kind):
    from coursegen.pages import PACKAGE_TEMPLATES

    words = forbidden()
    part = {
        "coursegen": REPO / "coursegen",
        "grader": REPO / "grader",
        "templates": PACKAGE_TEMPLATES.resolve(),
        "cli.py": REPO / "cli.py",
    }[kind]
    files = [p for p in engine_files() if p == part or part in p.parents]
    assert files, f"no engine files under {part}"
    found = [f for path in files for f in findings(path, words)]
    assert not found, "course knowledge in the engine:\n" + "\n".join(found)


def test_every_generic_exemption_is_still_used_by_the_engine():
    """An exemption no engine file needs any more is removed, so the list cannot hide a name."""
    text = "\n".join(path.read_text(encoding="utf-8", errors="replace") for path in engine_files())
    used = {word.lower() for whole, parts in words_of(text) for word in (whole, *parts)}
    assert [word for word in GENERIC if word not in used] == []
    assert set(GENERIC) <= set(forbidden()), "an exemption for a word the course does not define"


def test_every_known_leftover_is_still_there():
    """A leftover that was fixed is removed from KNOWN_LEFTOVERS, so the list only shrinks."""
    for (name, word), reason in KNOWN_LEFTOVERS.items():
        assert reason and word in (REPO / name).read_text(encoding="utf-8"), (name, word)
