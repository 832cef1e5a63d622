"""The wire format: values round-trip exactly, and malformed frames are rejected cleanly."""

from __future__ import annotations

import json
import math

import pytest
import torch

from grader.sandbox import wire


def round_trip(value, max_elements=10**7):
    encoder = wire.Encoder()
    node = encoder.encode(value)
    data = wire.frame({"ok": node}, encoder.blob())
    [(body, blob)] = wire.FrameReader(max_json=1 << 20, max_blob=1 << 30).feed(data)
    return wire.decode_value(wire.parse_json(body)["ok"], blob, max_elements=max_elements)


def test_values_round_trip_with_their_types():
    value = [None, True, 3, 2.5, "s", (1, [2]), {"k": (3,), 4: None}]
    assert round_trip(value) == value


def test_tensors_round_trip_bit_for_bit():
    x = torch.tensor([math.nan, -0.0, math.inf, 1e-45], dtype=torch.float32)
    y = round_trip(x)
    assert torch.equal(y.view(torch.int32), x.view(torch.int32))


def test_conjugate_and_negative_views_are_sent_resolved():
    z = torch.tensor([1 + 2j, 3 - 4j], dtype=torch.complex64)
    assert torch.equal(round_trip(z.conj()), z.conj().resolve_conj())
    assert torch.equal(round_trip(z.conj().imag), -z.imag)


def test_non_contiguous_tensor_is_sent_contiguous():
    x = torch.arange(12).reshape(3, 4).T
    assert torch.equal(round_trip(x), x)


def test_frames_split_anywhere_are_reassembled():
    data = wire.frame({"a": 1}, b"xyz") + wire.frame({"b": 2})
    reader = wire.FrameReader(max_json=100, max_blob=100)
    frames = [f for byte in data for f in reader.feed(bytes([byte]))]
    assert [(json.loads(b), blob) for b, blob in frames] == [({"a": 1}, b"xyz"), ({"b": 2}, b"")]


def test_oversized_frame_header_is_rejected_before_reading_the_body():
    with pytest.raises(wire.ProtocolError, match="too large"):
        wire.FrameReader(max_json=100, max_blob=100).feed(wire.HEADER.pack(2**31, 0))


@pytest.mark.parametrize(
    "node, blob",
    [
        ({"tensor": ["float32", [2], 0, 4]}, b"1234"),  # bytes do not match the shape
        ({"tensor": ["float32", [1], 4, 4]}, b"1234"),  # offset beyond the blob
        ({"tensor": ["object", [1], 0, 8]}, b"12345678"),  # dtype not allowed
        ({"tensor": ["float32", [-1], 0, 4]}, b"1234"),  # negative dimension
        ({"tensor": ["float32", [1] * 40, 0, 4]}, b"1234"),  # too many dimensions
        ({"tensor": ["float32", [10**12], 0, 4 * 10**12]}, b""),  # too many elements
        ({"tensor": "x"}, b""),
        ({"pickle": "gASV"}, b""),  # unknown tag
        ({"tuple": [1], "dict": []}, b""),  # two tags
        ({"dict": [[[1], 2]]}, b""),  # unhashable key
        ({"ref": [1, "TiedLM"]}, b""),  # refs only where expected
    ],
)
def test_malformed_values_raise_protocol_error(node, blob):
    with pytest.raises(wire.ProtocolError):
        wire.decode_value(node, blob, max_elements=10**6)


def test_deep_nesting_is_rejected():
    node = 1
    for _ in range(100):
        node = [node]
    with pytest.raises(wire.ProtocolError):
        wire.decode_value(node, b"", max_elements=10)


def test_invalid_json_is_a_protocol_error():
    for body in (b"\xff\xfe", b"[1,2]", b"{" * 100000, b'{"a": 1e99999}x'):
        with pytest.raises(wire.ProtocolError):
            wire.parse_json(body)


def test_bool_tensor_bytes_other_than_zero_and_one_are_normalised():
    value = wire.decode_value({"tensor": ["bool", [3], 0, 3]}, bytes([0, 1, 7]), max_elements=10)
    assert value.tolist() == [False, True, True]


def test_decoded_tensor_owns_its_memory():
    blob = bytearray(b"\x00\x00\x80\x3f")
    value = wire.decode_value({"tensor": ["float32", [1], 0, 4]}, bytes(blob), max_elements=10)
    value.add_(1)
    assert value.item() == 2.0


def test_unknown_python_objects_are_unencodable():
    with pytest.raises(wire.Unencodable) as info:
        wire.Encoder().encode([object()])
    assert info.value.type_name == "object"
