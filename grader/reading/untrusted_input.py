"""Reading what a student handed in, under bounds: everything here is hostile.

    read_untrusted(path, root) -> bytes           a regular file with one name, never through a
                                                  link, at most MAX_BYTES
    parse_bounded(text, filename, budget)         ast.parse, once the token count is under the budget
    check_json_bounds(text)                       JSON's value count and nesting, before json.loads

Each refuses with `Refused`, whose one argument is what to tell the student (a Said, put into
words in the reader's language when shown; the file is graded zero); `syntax_message` is what
to tell about code that does not parse. Nothing here knows a language.
"""

from __future__ import annotations

import ast
import errno
import io
import os
import stat
import tokenize
from pathlib import Path

from grader.feedback import Said, said
from grader.jsonshape import shape_of
from grader.textsafe import display_name
from grader.errors import CoursegenError

MAX_BYTES = 20 * 1024 * 1024
MAX_TOKENS = 100_000  # Python tokens parsed in the grader (~600 bytes of syntax tree each)
MAX_JSON_VALUES = 200_000  # JSON values (objects, arrays, strings, numbers) of one notebook
MAX_JSON_DEPTH = 64  # nesting of a notebook's JSON (nbformat 4 needs about 6)


class Refused(CoursegenError):
    """Why a file is not read (a link, not a regular file, too large): its argument is a Said."""

    @property
    def said(self) -> Said:
        return self.args[0]


def read_untrusted(path: Path, root: Path | None = None) -> bytes:
    """The bytes of a regular file, never through a link: every folder from `root` (or the
    file's own folder) down to the file is opened with O_NOFOLLOW, so a link swapped in
    meanwhile is refused too. Raises Refused with the sentence for the student."""
    parts: tuple[str, ...]
    if root is None:
        root, parts = path.parent, (path.name,)
    else:
        try:
            parts = path.relative_to(root).parts
        except ValueError:
            root, parts = path.parent, (path.name,)
    nofollow = os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    shown = display_name(path.name)
    try:
        folder = os.open(root, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise Refused(said("cannot_open", name=shown, reason=exc.strerror or "error")) from None
    try:
        for part in parts[:-1]:
            try:
                inner = os.open(part, os.O_RDONLY | os.O_DIRECTORY | nofollow, dir_fd=folder)
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
                    raise Refused(said("symlink", name=display_name(part))) from None
                raise Refused(said("cannot_open", name=shown, reason=exc.strerror or "error")) from None
            os.close(folder)
            folder = inner
        try:
            fd = os.open(parts[-1], os.O_RDONLY | os.O_NONBLOCK | nofollow, dir_fd=folder)
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.EMLINK):
                raise Refused(said("symlink", name=shown)) from None
            raise Refused(said("cannot_open", name=shown, reason=exc.strerror or "error")) from None
    finally:
        os.close(folder)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise Refused(said("not_regular", name=shown))
        if info.st_nlink > 1:  # another name of the same file: maybe a reference on this file system
            raise Refused(said("hard_link", name=shown, count=info.st_nlink))
        if info.st_size > MAX_BYTES:
            raise Refused(said("too_large", size=info.st_size / 1e6, limit=MAX_BYTES // (1024 * 1024)))
        chunks, size = [], 0
        while size <= MAX_BYTES:
            chunk = os.read(fd, min(1 << 20, MAX_BYTES + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > MAX_BYTES:
            raise Refused(said("too_large", size=size / 1e6, limit=MAX_BYTES // (1024 * 1024)))
        return b"".join(chunks)
    except OSError as exc:
        raise Refused(said("cannot_open", name=shown, reason=exc.strerror or "error")) from None
    finally:
        os.close(fd)


def check_token_budget(text: str, budget: list[int]) -> None:
    """Refuse source whose syntax tree could be large: count its tokens (stopping at the limit)
    before ast.parse builds the tree. `budget` is shared by all cells of one notebook."""
    if 2 * len(text) + 2 < budget[0]:  # at most about one token per character: cheap case
        budget[0] -= 2 * len(text) + 2
        return
    count = 0
    try:
        for _ in tokenize.generate_tokens(io.StringIO(text).readline):
            count += 1
            if count > budget[0]:
                raise Refused(said("too_many_tokens", limit=MAX_TOKENS))
    except (tokenize.TokenError, SyntaxError):
        pass  # ast.parse reports the syntax error itself
    budget[0] -= count


def parse_bounded(text: str, filename: str, budget: list[int]) -> ast.Module:
    check_token_budget(text, budget)
    try:
        return ast.parse(text, filename=filename)
    except (RecursionError, MemoryError):
        raise SyntaxError("the code is nested too deeply to be read") from None


def check_json_bounds(text: str) -> None:
    """Count the values and the nesting of JSON text before decoding it (grader.jsonshape:
    linear time, strings left out). Malformed text passes: json.loads reports it."""
    values, depth = shape_of(text, MAX_JSON_VALUES)
    if values > MAX_JSON_VALUES:
        raise Refused(said("json_too_large", limit=MAX_JSON_VALUES))
    if depth > MAX_JSON_DEPTH:
        raise Refused(said("json_too_deep", limit=MAX_JSON_DEPTH))


def syntax_message(exc: Exception, cell: int | None = None) -> Said:
    line = getattr(exc, "lineno", None) or 0
    column = getattr(exc, "offset", None) or 0
    message = getattr(exc, "msg", None) or str(exc)
    if cell is None:
        return said("syntax_error", line=line, column=column, message=message)
    return said("cell_syntax_error", cell=cell, line=line, column=column, message=message)
