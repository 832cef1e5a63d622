"""Fuzzing the submission reader (trusted code reading student files): whatever the bytes, the
JSON shape or the file name, `load_submission` returns a Submission (graded zero with one
sentence when unreadable) and never raises."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grader.reading.submission import Submission, load_submission
from tests.first_course import COURSE

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)
NOTEBOOK_KEYS = st.sampled_from(
    ["cells", "metadata", "nbformat", "source", "cell_type", "coursegen", "role", "exercise", "exercises"]
)


def notebook_like(draw_value, key_choices):
    """A notebook skeleton whose fields are replaced by random JSON at random places."""
    return st.fixed_dictionaries(
        {
            "nbformat": st.one_of(st.just(4), draw_value),
            "metadata": st.one_of(
                st.fixed_dictionaries(
                    {"coursegen": st.fixed_dictionaries({"exercises": st.one_of(st.just(["apply_rope"]), draw_value)})}
                ),
                draw_value,
            ),
            "cells": st.one_of(
                st.lists(
                    st.one_of(
                        st.fixed_dictionaries(
                            {
                                "cell_type": st.one_of(st.just("code"), draw_value),
                                "source": st.one_of(
                                    st.just("def apply_rope(x):\n    return x\n"),
                                    st.lists(draw_value, max_size=3),
                                    draw_value,
                                ),
                                "metadata": st.one_of(
                                    st.fixed_dictionaries(
                                        {
                                            "coursegen": st.fixed_dictionaries(
                                                {
                                                    "role": st.one_of(st.just("exercise"), draw_value),
                                                    "exercise": st.one_of(st.just("apply_rope"), draw_value),
                                                }
                                            )
                                        }
                                    ),
                                    draw_value,
                                ),
                            }
                        ),
                        draw_value,
                    ),
                    max_size=3,
                ),
                draw_value,
            ),
        }
    )


def read(name: bytes, data: bytes) -> Submission:
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(os.fsencode(folder), name)
        with open(path, "wb") as handle:
            handle.write(data)
        return load_submission(Path(os.fsdecode(path)), COURSE, root=Path(folder))


@SETTINGS
@given(notebook_like(JSON, NOTEBOOK_KEYS))
def test_any_notebook_shape_is_read_or_refused_with_one_sentence(notebook):
    submission = read(b"rope-alibi.ipynb", json.dumps(notebook).encode())
    assert isinstance(submission, Submission)
    assert submission.fatal is None or ("\n" not in str(submission.fatal) and submission.exercises)


@SETTINGS
@given(st.binary(max_size=2048), st.sampled_from([b"rope.py", b"rope.ipynb", b"x.py"]))
def test_any_bytes_are_read_or_refused_with_one_sentence(data, name):
    submission = read(name, data)
    assert isinstance(submission, Submission)
    assert submission.fatal is None or "\n" not in str(submission.fatal)


@SETTINGS
@given(st.binary(min_size=1, max_size=40).filter(lambda b: b"/" not in b and b"\0" not in b and b not in (b".", b"..")))
def test_any_file_name_is_read_without_crashing(name):
    submission = read(name + b".py", b"def apply_rope(x):\n    return x\n")
    assert isinstance(submission, Submission)
