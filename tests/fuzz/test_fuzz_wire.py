"""Fuzzing the grader's decoder: whatever bytes a child sends, the parent either gets a value
or a ProtocolError -- never another exception, a hang or a crash."""

from __future__ import annotations

import json
import math

import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grader.sandbox import wire

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def decode_frames(data: bytes, max_elements: int = 10**6) -> list:
    """The parent's whole decoding path for one stream of bytes."""
    values = []
    for body, blob in wire.FrameReader(max_json=1 << 16, max_blob=1 << 16).feed(data):
        message = wire.parse_json(body)
        values.append(
            wire.decode_value(
                message.get("ok"), blob, max_elements=max_elements, make_ref=lambda ref, name: (ref, name)
            )
        )
    return values


@SETTINGS
@given(st.binary(max_size=4096))
def test_random_bytes_decode_or_raise_protocol_error(data):
    try:
        decode_frames(data)
    except wire.ProtocolError:
        pass


@SETTINGS
@given(st.binary(max_size=2048), st.binary(max_size=512))
def test_random_json_body_and_blob_in_a_valid_frame(body, blob):
    try:
        decode_frames(wire.HEADER.pack(len(body), len(blob)) + body + blob)
    except wire.ProtocolError:
        pass


JSON_LEAVES = (
    st.none() | st.booleans() | st.integers(min_value=-(2**70), max_value=2**70) | st.floats() | st.text(max_size=20)
)
TAGS = st.sampled_from(["tuple", "dict", "tensor", "ref", "pickle", ""])


def tagged(children):
    return st.one_of(
        st.lists(children, max_size=4),
        st.builds(lambda tag, payload: {tag: payload}, TAGS, children),
        st.builds(
            lambda d, shape, off, n: {"tensor": [d, shape, off, n]},
            st.sampled_from(list(wire.DTYPES) + ["object", 3, None]),
            st.lists(st.integers(min_value=-3, max_value=2**40), max_size=5) | children,
            st.integers(min_value=-8, max_value=600) | children,
            st.integers(min_value=-8, max_value=600) | children,
        ),
        st.dictionaries(st.text(max_size=5), children, max_size=3),
    )


@SETTINGS
@given(st.recursive(JSON_LEAVES, tagged, max_leaves=30), st.binary(max_size=512))
def test_random_value_trees_decode_or_raise_protocol_error(tree, blob):
    try:
        body = json.dumps({"ok": tree}).encode()
    except (ValueError, OverflowError):
        return
    try:
        decode_frames(wire.frame({"ok": tree}, blob) if body else b"")
    except wire.ProtocolError:
        pass


SHAPES = st.lists(st.integers(min_value=0, max_value=5), min_size=0, max_size=4)
SPECIAL = st.sampled_from([0.0, -0.0, math.nan, math.inf, -math.inf, 1e308, -1e-308, 3.4e38, 65504.0])


@SETTINGS
@given(st.sampled_from(list(wire.DTYPES.values())), SHAPES, st.data())
def test_random_tensors_round_trip_bit_for_bit(dtype, shape, data):
    numel = math.prod(shape)
    if dtype.is_floating_point or dtype.is_complex:
        values = data.draw(st.lists(SPECIAL | st.floats(width=32), min_size=numel, max_size=numel))
        tensor = torch.tensor(values, dtype=torch.float64).to(dtype).reshape(shape)
    elif dtype == torch.bool:
        tensor = torch.tensor(
            data.draw(st.lists(st.booleans(), min_size=numel, max_size=numel)), dtype=torch.bool
        ).reshape(shape)
    else:
        info = torch.iinfo(dtype)
        values = data.draw(st.lists(st.integers(info.min, info.max), min_size=numel, max_size=numel))
        tensor = torch.tensor(values, dtype=dtype).reshape(shape)
    encoder = wire.Encoder()
    node = encoder.encode({"t": tensor})
    [value] = decode_frames(wire.frame({"ok": node}, encoder.blob()))
    got = value["t"]
    assert got.dtype == dtype and got.shape == tensor.shape
    assert got.reshape(-1).view(torch.uint8).tolist() == tensor.reshape(-1).view(torch.uint8).tolist()
