"""grader.checking.trusted_results: trusted code's results reused within a run, never for another input."""

from __future__ import annotations

import pytest
import torch

from grader.checking import trusted_results


@pytest.fixture(autouse=True)
def empty_cache():
    trusted_results.clear()
    yield
    trusted_results.clear()


def _counted(fn):
    calls = []

    def wrapped(*args, **kwargs):
        calls.append(args)
        return fn(*args, **kwargs)

    return wrapped, calls


def double(x):
    return x * 2


def test_the_same_inputs_are_computed_once_and_other_inputs_again():
    fn, calls = _counted(double)
    x = torch.arange(6.0)

    def run(value):
        key = trusted_results.inputs_key((value,), {})
        return trusted_results.call(double, key, "float64", lambda: fn(value))

    assert torch.equal(run(x), x * 2)
    assert torch.equal(run(x.clone()), x * 2)  # equal contents: a hit
    assert len(calls) == 1
    changed = x.clone()
    changed[5] = 7.0  # one element differs: computed again
    assert torch.equal(run(changed), changed * 2)
    assert torch.equal(run(x.to(torch.float64)), x.to(torch.float64) * 2)  # another dtype: again
    assert torch.equal(run(x.reshape(2, 3)), x.reshape(2, 3) * 2)  # another shape: again
    assert len(calls) == 4


def test_keys_tell_apart_values_that_print_alike():
    keys = [
        trusted_results.inputs_key(args, kwargs)
        for args, kwargs in [
            ((1,), {}),
            ((1.0,), {}),
            ((True,), {}),
            (("1",), {}),
            (([1],), {}),
            (((1,),), {}),
            ((), {"x": 1}),
            ((1, 2), {}),
            (([1, 2],), {}),
            ((torch.tensor([1]),), {}),
            ((torch.tensor([1.0]),), {}),
            ((torch.tensor([1.0], requires_grad=True),), {}),
        ]
    ]
    assert None not in keys
    assert len(set(keys)) == len(keys)


def test_what_is_handed_out_is_a_copy():
    key = trusted_results.inputs_key((torch.ones(3),), {})
    first = trusted_results.call(double, key, "float64", lambda: double(torch.ones(3)))
    first.add_(100.0)  # a caller writes into its result
    second = trusted_results.call(double, key, "float64", lambda: pytest.fail("computed again"))
    assert torch.equal(second, torch.full((3,), 2.0))


def test_variants_and_functions_are_separate_entries():
    key = trusted_results.inputs_key((torch.ones(2),), {})
    assert torch.equal(trusted_results.call(double, key, "float64", lambda: torch.zeros(2)), torch.zeros(2))
    assert torch.equal(trusted_results.call(double, key, "as given", lambda: torch.ones(2)), torch.ones(2))

    def triple(x):
        return x * 3

    assert torch.equal(
        trusted_results.call(triple, key, "float64", lambda: torch.full((2,), 3.0)), torch.full((2,), 3.0)
    )


def test_not_plain_inputs_and_not_functions_are_never_cached():
    assert trusted_results.inputs_key((object(),), {}) is None
    assert trusted_results.inputs_key((), {"f": lambda: 0}) is None
    fn, calls = _counted(double)
    for _ in range(2):
        trusted_results.call(fn, None, "float64", lambda: fn(1))
    key = trusted_results.inputs_key((1,), {})
    bound = (2).__mul__  # a builtin method, not a plain function
    for _ in range(2):
        trusted_results.call(bound, key, "float64", lambda: fn(1))
    assert len(calls) == 4


def test_an_exception_is_kept_and_raised_again_for_the_same_inputs_only():
    key = trusted_results.inputs_key((0,), {})
    raised = []

    def failing():
        raised.append(1)
        raise ValueError("odd d_model")

    for _ in range(3):
        with pytest.raises(ValueError, match="odd d_model") as caught:
            trusted_results.call(double, key, "float64", failing)
        assert len(caught.traceback) < 6  # raised afresh: no frames of an earlier raise pile up
    assert len(raised) == 1
    with pytest.raises(ValueError):
        trusted_results.known(double, key, "float64")  # known: the exception, not MISSING
    other = trusted_results.inputs_key((1,), {})
    assert trusted_results.call(double, other, "float64", lambda: double(1)) == 2  # other inputs: run
    assert trusted_results.known(double, other, "as given") is trusted_results.MISSING


@pytest.mark.parametrize("error", [MemoryError, RecursionError, KeyboardInterrupt, RuntimeError, OSError])
def test_what_says_more_of_the_moment_than_of_the_inputs_is_not_kept(error):
    """torch's allocator fails with RuntimeError, the machine with OSError: raised again, run again."""
    key = trusted_results.inputs_key((0,), {})
    raised = []

    def failing():
        raised.append(1)
        raise error()

    for _ in range(2):
        with pytest.raises(error):
            trusted_results.call(double, key, "float64", failing)
    assert len(raised) == 2
    assert trusted_results.known(double, key, "float64") is trusted_results.MISSING


def test_the_cache_is_bounded_in_bytes_and_a_full_cache_keeps_what_it_holds(monkeypatch):
    """Full, it keeps its first results rather than the newest: a batch asks every submission for
    the same results in the same order, and dropping the oldest would drop each just before its
    next use (no hit at all once a submission's results outgrow the cache)."""
    monkeypatch.setattr(trusted_results, "MAX_BYTES", 3 * 5000)
    monkeypatch.setattr(trusted_results, "MAX_ENTRY", 5000)
    keys = [trusted_results.inputs_key((i,), {}) for i in range(5)]
    for _ in range(2):  # two submissions asking for the same five results
        for key in keys:
            trusted_results.call(double, key, "float64", lambda: torch.zeros(1000))  # ~4600 bytes with its overhead
    assert trusted_results.call(double, keys[0], "float64", lambda: None) is not None  # the first kept
    assert trusted_results.call(double, keys[2], "float64", lambda: None) is not None
    assert trusted_results.call(double, keys[3], "float64", lambda: "recomputed") == "recomputed"  # no room
    assert trusted_results.call(double, keys[4], "float64", lambda: "recomputed") == "recomputed"
    big = trusted_results.inputs_key(("big",), {})
    trusted_results.call(double, big, "float64", lambda: torch.zeros(5000))  # over MAX_ENTRY
    assert trusted_results.call(double, big, "float64", lambda: "recomputed") == "recomputed"


def test_a_references_result_outlives_the_wrapper_that_bounds_its_time():
    """Each grading job sets up its `reference` fixture anew (instructor_limit.bounded_namespace: a
    new time-limiting wrapper per function); the result is kept for the reference itself, so the
    next submission's check finds it."""
    import types

    from grader.checking import instructor_limit

    fn, calls = _counted(double)
    namespace = types.SimpleNamespace(double=fn)
    first, second = instructor_limit.bounded_namespace(namespace), instructor_limit.bounded_namespace(namespace)
    assert first.double is not second.double
    key = trusted_results.inputs_key((3,), {})
    assert trusted_results.call(first.double, key, "float64", lambda: first.double(3)) == 6
    assert trusted_results.known(second.double, key, "float64") == 6
    assert trusted_results.call(second.double, key, "float64", lambda: second.double(3)) == 6
    assert len(calls) == 1


def test_a_function_built_on_a_reference_wrapper_is_not_taken_for_the_reference():
    """functools.wraps copies a wrapper's attributes onto the function built on it: the link from
    wrapper to reference is by identity, so that function keeps results of its own."""
    import functools
    import types

    from grader.checking import instructor_limit

    bounded = instructor_limit.bounded_namespace(types.SimpleNamespace(double=double))
    quadruple = functools.wraps(bounded.double)(lambda x: bounded.double(2 * x))
    key = trusted_results.inputs_key((3,), {})
    assert trusted_results.call(bounded.double, key, "float64", lambda: bounded.double(3)) == 6
    assert trusted_results.known(quadruple, key, "float64") is trusted_results.MISSING
    assert trusted_results.call(quadruple, key, "float64", lambda: quadruple(3)) == 12
    assert trusted_results.call(bounded.double, key, "float64", lambda: "recomputed") == 6


def test_a_known_result_is_handed_out_without_a_helper_thread_and_as_a_copy(monkeypatch):
    """run_bounded: the first call runs the reference in a helper thread (bounded by the time
    limit); a later one on equal inputs takes the result computed before, in the caller's thread."""
    import threading

    from grader.checking import instructor_limit
    from grader.checking.runs import Runner, run_bounded

    threads = []

    def reference(x):
        threads.append(threading.current_thread())
        return x * 2

    first = run_bounded(("reference", "reference"), Runner((torch.arange(4.0),), {}), reference)
    assert len(threads) == 1 and threads[0] is not threading.current_thread()

    def no_helper():
        raise AssertionError("a known result went through a helper thread")

    monkeypatch.setattr(instructor_limit, "_idle", [])
    monkeypatch.setattr(instructor_limit, "_Helper", no_helper)
    second = run_bounded(("reference", "reference"), Runner((torch.arange(4.0),), {}), reference)
    assert torch.equal(first, second) and second.dtype == torch.float64 and len(threads) == 1
    second += 1  # a copy: the next caller still gets the reference's values
    third = run_bounded(("reference", "reference"), Runner((torch.arange(4.0),), {}), reference)
    assert torch.equal(third, first)


def test_a_label_that_timed_out_fails_even_when_its_result_is_known():
    from grader.checking import instructor_limit
    from grader.checking.runs import Runner, run_bounded

    label = ("reference", "once_slow")
    run_bounded(label, Runner((torch.arange(3.0),), {}), double)
    instructor_limit._timed_out[label] = 1.0  # as if another input of it had run out of time
    try:
        with pytest.raises(instructor_limit.InstructorTimeout):
            run_bounded(label, Runner((torch.arange(3.0),), {}), double)
    finally:
        instructor_limit.reset()


class Scaler:
    """A trusted class (a reference's or a catalogued mistake's): counts how often it is built."""

    built: list[int] = []

    def __init__(self, factor):
        Scaler.built.append(factor)
        self.factor = factor

    def __call__(self, x):
        return x * self.factor


def _scenario(x, factor):
    """What a check builds anew for each submission: a closure over the check's inputs."""

    def scenario(make):
        return make(factor)(x)

    return scenario


def test_a_classs_scenario_is_observed_once_per_scenario_code_and_captured_values():
    from grader.checking.runs import Observation

    Scaler.built.clear()
    x = torch.arange(4.0)
    first = Observation(_scenario(x, 3))(Scaler)
    again = Observation(_scenario(x.clone(), 3))(Scaler)  # another submission: a new closure, equal values
    assert torch.equal(first, x * 3) and torch.equal(again, x * 3) and Scaler.built == [3]
    again += 1  # a copy: the next observer still gets the class's values
    assert torch.equal(Observation(_scenario(x, 3))(Scaler), x * 3) and Scaler.built == [3]
    assert torch.equal(Observation(_scenario(x, 2))(Scaler), x * 2)  # another captured value: run again
    changed = x.clone()
    changed[0] = 9.0
    assert torch.equal(Observation(_scenario(changed, 3))(Scaler), changed * 3)
    assert Scaler.built == [3, 2, 3]

    def other(make):  # another scenario's code on the same values: its own entry
        return make(3)(x) + 0

    Observation(other)(Scaler)
    assert Scaler.built == [3, 2, 3, 3]


def test_a_scenario_capturing_more_than_plain_data_or_given_no_class_runs_every_time():
    from grader.checking.runs import Observation

    Scaler.built.clear()
    generator = torch.Generator().manual_seed(0)

    def drawing(make):  # its result depends on the generator's state, not only on what it captured
        return make(1)(torch.rand(2, generator=generator))

    first, second = Observation(drawing)(Scaler), Observation(drawing)(Scaler)
    assert not torch.equal(first, second) and Scaler.built == [1, 1]

    def instance_factory(factor):  # a callable that is not a class (a recorded reference, grader/replay)
        return Scaler(factor)

    Observation(_scenario(torch.ones(2), 5))(instance_factory)
    Observation(_scenario(torch.ones(2), 5))(instance_factory)
    assert Scaler.built == [1, 1, 5, 5]


def test_expect_behaviour_runs_the_reference_class_once_for_every_submission_of_a_run():
    """Each submission's check builds its scenario anew; the reference's observation is computed
    for the first and handed to the others, while each student's class is still run every time."""
    from types import SimpleNamespace

    from grader.checking.expectations import expect_behaviour
    from grader.checking.local_objects import local_class

    class StudentScaler(Scaler):
        runs: list[int] = []

        def __call__(self, x):
            StudentScaler.runs.append(1)
            return x * self.factor

    Scaler.built.clear()
    reference = SimpleNamespace(Scaler=Scaler)
    for _ in range(3):
        candidate = SimpleNamespace(Scaler=local_class(StudentScaler))
        expect_behaviour(candidate, reference, "Scaler", _scenario(torch.arange(3.0), 4))
    assert len(StudentScaler.runs) == 3  # each student's own class, each time
    assert Scaler.built == [4, 4, 4, 4]  # three students' objects, and the reference's once


def test_two_scenarios_on_one_line_reading_the_same_values_are_kept_apart():
    from grader.checking.runs import Observation

    x = torch.arange(3.0)
    scaled, halved = (lambda make: make(2)(x)), (lambda make: make(2)(x) / 2)  # one line, one qualname
    assert torch.equal(Observation(scaled)(Scaler), x * 2)
    assert torch.equal(Observation(halved)(Scaler), x)


FACTOR = 2


def _reads_a_global(make):
    return make(FACTOR)(torch.ones(2))


class _Case:
    def __init__(self, factor):
        self.factor = factor

    def run(self, make):  # reads self, which is not captured: never kept
        return make(self.factor)(torch.ones(2))


def test_what_a_scenario_reads_besides_its_closure_is_in_its_key_or_it_is_not_kept(monkeypatch):
    from grader.checking.runs import Observation

    assert torch.equal(Observation(_reads_a_global)(Scaler), torch.full((2,), 2.0))
    monkeypatch.setitem(globals(), "FACTOR", 5)  # a module-level value the scenario names
    assert torch.equal(Observation(_reads_a_global)(Scaler), torch.full((2,), 5.0))
    assert torch.equal(Observation(_Case(3).run)(Scaler), torch.full((2,), 3.0))
    assert torch.equal(Observation(_Case(4).run)(Scaler), torch.full((2,), 4.0))


def test_a_scenario_that_changes_what_it_captured_is_kept_under_what_it_was_given():
    """The student's scenario runs first on the check's live values; the reference's result must
    be the one for the values as they are when it runs, and found again only for those."""
    from grader.checking.runs import Observation

    def check():  # a check whose scenario scales its captured input in place after using it
        x = torch.ones(2)

        def scenario(make):
            y = make(2)(x)
            x.mul_(10)
            return y

        return scenario

    first = check()
    observe = Observation(first)  # made before the student's run, as expect_behaviour makes it
    first(lambda factor: Scaler(factor))  # as the student's run would: x is now 10
    assert torch.equal(observe(Scaler), torch.full((2,), 20.0))
    assert torch.equal(Observation(check())(Scaler), torch.full((2,), 2.0))  # fresh x: not the 20s


def test_an_error_raised_while_handling_a_memory_error_is_not_kept():
    key = trusted_results.inputs_key((0,), {})
    raised = []

    def failing():
        raised.append(1)
        try:
            raise MemoryError
        except MemoryError:
            raise ValueError("could not make the table") from None  # the context is still MemoryError

    for _ in range(2):
        with pytest.raises(ValueError):
            trusted_results.call(double, key, "float64", failing)
    assert len(raised) == 2


def test_a_references_exception_is_never_kept():
    """A raising reference is a fault of the check, which verify locates where it was raised."""
    wrapper = lambda x: reference_that_raises(x)  # noqa: E731 - as instructor_limit wraps a reference
    trusted_results.key_by_reference(wrapper, reference_that_raises)
    key = trusted_results.inputs_key((0,), {})
    for _ in range(2):
        with pytest.raises(ValueError) as caught:
            trusted_results.call(wrapper, key, "float64", lambda: wrapper(0))
        assert caught.traceback[-1].name == "reference_that_raises"
    assert trusted_results.known(wrapper, key, "float64") is trusted_results.MISSING


def reference_that_raises(x):
    raise ValueError("the check's inputs break the reference")


def test_each_caller_gets_its_own_exception_with_nothing_of_another_callers_raise():
    key = trusted_results.inputs_key((0,), {})
    big = torch.zeros(1000)

    def failing():
        raise ValueError("odd d_model")

    errors = []
    for _ in range(3):
        try:
            try:
                raise KeyError(big)  # a caller handling something of its own (a student's value)
            except KeyError:
                trusted_results.call(double, key, "float64", failing)
        except ValueError as error:
            errors.append(error)
    assert len({id(e) for e in errors}) == 3 and all(str(e) == "odd d_model" for e in errors)
    stored = next(iter(trusted_results._results.values())).error
    assert stored.__context__ is None and stored.__traceback__ is None
