"""Trusted, in-process candidates: the references, the stubs or a catalogued mistake, behind
the same interface as the sandbox's candidate. For developing checks and for unit tests only:
student code never runs in the grading process.
"""

from __future__ import annotations

import inspect
import types
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    from grader.course import Course


# ---- trusted, in-process candidates (checks development and unit tests only) -----------------


def reference_namespace(course: Course) -> types.SimpleNamespace:
    """Every public name of every solutions module of `course`, as one namespace."""
    return _merged_modules(course, "solutions")


def _merged_modules(course: Course, package: str) -> types.SimpleNamespace:
    merged: dict[str, Any] = {}
    for module_name in course.registry.modules:
        module = course.optional_module(package, module_name)
        if module is None:
            continue
        merged.update({k: v for k, v in vars(module).items() if not k.startswith("_")})
    return types.SimpleNamespace(**merged)


def trusted_namespace(course: Course, spec: str) -> types.SimpleNamespace:
    """A namespace of `course`'s trusted code: "solutions", "exercises", "solutions.vectors",
    "exercises.vectors" or "mistake:<id>" (the references with that one definition replaced)."""
    if spec in ("solutions", "exercises"):
        return _merged_modules(course, spec)
    if spec.startswith("mistake:"):
        wanted = spec.split(":", 1)[1]
        found = [m for m in course.catalogue() if m.id == wanted]
        if not found:
            raise ValueError(f"no catalogued mistake has id {wanted!r}")
        namespace = reference_namespace(course)
        setattr(namespace, found[0].target, found[0].obj)
        return namespace
    kind, _, module = spec.partition(".")
    if kind not in ("solutions", "exercises") or not module:
        raise ValueError(
            f"--grader-candidate {spec!r}: expected solutions, exercises, solutions.<module>, "
            "exercises.<module> or mistake:<id>"
        )
    loaded = course.module(kind, module)
    return types.SimpleNamespace(**{k: v for k, v in vars(loaded).items() if not k.startswith("_")})


class TrustedCandidate:
    """The candidate interface over trusted code running in this process: inputs and outputs
    are copied (as they would be across the sandbox), classes give LocalObjects, and an
    exception becomes CandidateError with the sandbox's wording."""

    def __init__(self, namespace: Any):
        self._namespace = namespace

    def has(self, name: str) -> bool:
        return hasattr(self._namespace, name)

    def names(self) -> set[str]:
        return {k for k in vars(self._namespace) if not k.startswith("_")}

    def call_keeping_inputs(self, name: str, *args: Any, **kwargs: Any) -> tuple:
        """The sandbox candidate's `call_keeping_inputs`: (result, args, kwargs after the call)."""
        from grader.checking.local_objects import copies, detached

        if not hasattr(self._namespace, name):
            raise _candidate_error(f"{name} is not defined in your submission", name, kind="missing")
        args, kwargs = copies(args), copies(kwargs)
        try:
            result = getattr(self._namespace, name)(*args, **kwargs)
        except Exception as error:
            raise _candidate_error(f"{name} raised {type(error).__name__}: {error}", name) from None
        return detached(result), tuple(args), dict(kwargs)

    def __getattr__(self, name: str) -> Callable:
        from grader.checking.local_objects import LocalObject, copies, detached

        if name.startswith("_"):
            raise AttributeError(name)
        if not hasattr(self._namespace, name):
            raise _candidate_error(f"{name} is not defined in your submission", name, kind="missing")
        obj = getattr(self._namespace, name)

        def call(*args: Any, **kwargs: Any) -> Any:
            try:
                result = obj(*copies(args), **copies(kwargs))
            except Exception as error:  # becomes feedback, as in the sandbox
                raise _candidate_error(f"{name} raised {type(error).__name__}: {error}", name) from None
            return LocalObject(result) if inspect.isclass(obj) else detached(result)

        return call


def _candidate_error(message: str, name: str, kind: str = "raised") -> AssertionError:
    from grader.checking import CandidateError

    return CandidateError(message, kind, name)
