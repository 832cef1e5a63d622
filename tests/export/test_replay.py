"""grader.replay: recorded reference calls answer the same calls later, without the reference."""

from __future__ import annotations

import json
import types

import pytest
import torch

from grader import replay
from tests.nonempty import nonempty


def fake_reference():
    """A stand-in for the solutions namespace: functions, a raising function, a module class."""

    def scale(x, factor=2.0):
        return x * factor

    def split(x):
        return x[:1], x[1:], int(x.numel())

    def checked(n):
        if n % 2:
            raise ValueError(f"odd size {n}")
        return torch.zeros(n, dtype=torch.float32)

    class Tiny(torch.nn.Module):
        def __init__(self, d):
            super().__init__()
            self.proj = torch.nn.Linear(d, d, bias=False)

        def forward(self, x):
            return self.proj(x)

    return types.SimpleNamespace(scale=scale, split=split, checked=checked, Tiny=Tiny)


def record(calls):
    recording = replay.Recording(exercises=["scale"])
    recorder = replay.RecordingReference(fake_reference(), recording)
    outputs = calls(recorder)
    return recording, outputs


def saved_and_loaded(recording, tmp_path):
    recording.save(tmp_path / "rec")
    return replay.Recording.load(tmp_path / "rec")


def test_replayed_function_returns_the_recorded_tensor_bit_for_bit(tmp_path):
    x = torch.randn(3, 4, dtype=torch.float64)
    recording, (expected,) = record(lambda ref: [ref.scale(x, factor=0.5)])
    answer = replay.ReplayReference(saved_and_loaded(recording, tmp_path)).scale(x.clone(), factor=0.5)
    assert answer.dtype == expected.dtype and answer.shape == expected.shape
    assert torch.equal(answer, expected)


def test_replay_restores_tuples_and_ints(tmp_path):
    x = torch.arange(5)
    recording, (expected,) = record(lambda ref: [ref.split(x)])
    answer = replay.ReplayReference(saved_and_loaded(recording, tmp_path)).split(x)
    assert isinstance(answer, tuple) and answer[2] == 5
    assert torch.equal(answer[0], expected[0]) and torch.equal(answer[1], expected[1])


def test_replay_of_other_arguments_raises_a_replay_miss_that_fails_the_check(tmp_path):
    recording, _ = record(lambda ref: [ref.scale(torch.ones(2))])
    replayer = replay.ReplayReference(saved_and_loaded(recording, tmp_path))
    with pytest.raises(AssertionError, match="no precomputed expected value"):
        replayer.scale(torch.ones(3))


def test_replay_key_depends_on_values_dtype_and_keyword_names_not_on_tensor_identity():
    a = torch.ones(2)
    assert replay.call_key("", "f", (a,)) == replay.call_key("", "f", (a.clone(),))
    assert replay.call_key("", "f", (a,)) != replay.call_key("", "f", (a * 2,))
    assert replay.call_key("", "f", (a,)) != replay.call_key("", "f", (a.double(),))
    assert replay.call_key("", "f", (), {"a": 1, "b": 2}) == replay.call_key("", "f", (), {"b": 2, "a": 1})
    assert replay.call_key("", "f", (1,)) != replay.call_key("", "g", (1,))


def test_a_recorded_exception_is_raised_again_with_its_type_and_message(tmp_path):
    def calls(ref):
        with pytest.raises(ValueError):
            ref.checked(3)
        return []

    recording, _ = record(calls)
    with pytest.raises(ValueError, match="odd size 3"):
        replay.ReplayReference(saved_and_loaded(recording, tmp_path)).checked(3)


def test_an_object_replays_the_same_sequence_of_weight_setting_and_forward(tmp_path):
    w = torch.randn(3, 3, dtype=torch.float64)
    x = torch.randn(2, 3, dtype=torch.float64)

    def calls(ref):
        module = ref.Tiny(3).double()
        with torch.no_grad():
            module.proj.weight.copy_(w)
        return [module(x)]

    recording, (expected,) = record(calls)
    assert torch.allclose(expected, x @ w.T)
    module = replay.ReplayReference(saved_and_loaded(recording, tmp_path)).Tiny(3).double()
    with torch.no_grad():
        module.proj.weight.copy_(w)
    assert torch.equal(module(x), expected)


def test_an_object_used_in_another_order_misses(tmp_path):
    x = torch.randn(2, 3)
    recording, _ = record(lambda ref: [ref.Tiny(3)(x)])
    module = replay.ReplayReference(saved_and_loaded(recording, tmp_path)).Tiny(3)
    with pytest.raises(replay.ReplayMiss):
        module.proj.weight  # noqa: B018 - the recorded sequence called forward first


def test_saving_twice_gives_identical_bytes_and_the_index_is_plain_json(tmp_path):
    x = torch.randn(4, generator=torch.Generator().manual_seed(0))
    recording, _ = record(lambda ref: [ref.scale(x), ref.split(x)])
    recording.save(tmp_path / "a")
    recording.save(tmp_path / "b")
    for name in (replay.INDEX_FILE, replay.TENSOR_FILE):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    index = json.loads((tmp_path / "a" / replay.INDEX_FILE).read_text())
    assert index["format"] == replay.FORMAT and index["seed"] == replay.PUBLIC_SEED


def test_empty_and_bfloat16_tensors_survive_the_round_trip(tmp_path):
    values = [torch.zeros(0, 3), torch.arange(6, dtype=torch.bfloat16), torch.tensor([True, False])]
    recording = replay.Recording()
    recorder = replay.RecordingReference(types.SimpleNamespace(ident=lambda v: v), recording)
    for v in values:
        recorder.ident(v)
    replayer = replay.ReplayReference(saved_and_loaded(recording, tmp_path))
    for v in nonempty(values):
        back = replayer.ident(v)
        assert back.dtype == v.dtype and back.shape == v.shape and torch.equal(back, v)


def test_a_truncated_tensor_file_is_reported_not_misread(tmp_path):
    recording, _ = record(lambda ref: [ref.scale(torch.ones(8))])
    recording.save(tmp_path / "rec")
    (tmp_path / "rec" / replay.TENSOR_FILE).write_bytes(b"\0\0")
    with pytest.raises(replay.ReplayError, match="truncated"):
        replay.Recording.load(tmp_path / "rec")


def test_replay_mode_forces_the_recorded_seed_and_keeps_only_public_recorded_checks(tmp_path, monkeypatch):
    recording = replay.Recording(seed=1234, exercises=["apply_rope"])
    recording.save(tmp_path / "rec")
    monkeypatch.setenv(replay.REPLAY_ENV, str(tmp_path / "rec"))
    assert replay.mode() == "replay"
    assert replay.forced_seed() == 1234
    assert replay.keep_item("apply_rope", hidden=False)
    assert not replay.keep_item("apply_rope", hidden=True)
    assert not replay.keep_item("alibi_bias", hidden=False)


def test_replay_mode_never_builds_the_real_reference(tmp_path, monkeypatch):
    replay.Recording().save(tmp_path / "rec")
    monkeypatch.setenv(replay.REPLAY_ENV, str(tmp_path / "rec"))

    def no_solutions():
        raise ModuleNotFoundError("No module named 'solutions'")

    assert isinstance(replay.provide_reference(no_solutions), replay.ReplayReference)


def test_record_mode_writes_the_calls_and_exercises_at_session_end(tmp_path, monkeypatch):
    monkeypatch.setenv(replay.RECORD_ENV, str(tmp_path / "rec"))
    assert replay.forced_seed() == replay.PUBLIC_SEED
    assert replay.keep_item("scale", hidden=False) and not replay.keep_item("scale", hidden=True)
    recorder = replay.provide_reference(fake_reference)
    expected = recorder.scale(torch.ones(2))
    replay.session_finished()
    loaded = replay.Recording.load(tmp_path / "rec")
    assert loaded.exercises == ["scale"]
    assert torch.equal(replay.ReplayReference(loaded).scale(torch.ones(2)), expected)


def test_normal_mode_hands_over_the_real_reference_untouched(monkeypatch):
    monkeypatch.delenv(replay.RECORD_ENV, raising=False)
    monkeypatch.delenv(replay.REPLAY_ENV, raising=False)
    real = fake_reference()
    assert replay.provide_reference(lambda: real) is real
    assert replay.forced_seed() is None and replay.keep_item("x", hidden=True)


def test_a_generator_result_such_as_named_parameters_replays_as_a_list(tmp_path):
    def calls(ref):
        module = ref.Tiny(2)
        return [[(name, p.detach().clone()) for name, p in module.named_parameters()]]

    recording, (expected,) = record(calls)
    module = replay.ReplayReference(saved_and_loaded(recording, tmp_path)).Tiny(2)
    replayed = list(module.named_parameters())
    assert [name for name, _ in replayed] == [name for name, _ in expected] == ["proj.weight"]
    assert torch.equal(replayed[0][1], expected[0][1])


def test_recording_a_randomly_initialised_object_twice_gives_identical_files(tmp_path):
    def calls(ref):
        module = ref.Tiny(3)
        return [module.proj.weight.detach().clone()]

    for name in ("a", "b"):
        torch.manual_seed(len(name) * 7 + ord(name))  # a different global state each time
        recording, _ = record(calls)
        recording.save(tmp_path / name)
    for name in (replay.INDEX_FILE, replay.TENSOR_FILE):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
