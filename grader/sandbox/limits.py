"""Resource limits for one sandboxed child. The defaults let a correct naive Python loop pass
every check with room to spare; tests pass smaller values to make limit hits end fast."""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, fields, replace
from typing import Any

ENVIRONMENT_VARIABLE = "COURSEGEN_SANDBOX_LIMITS"


@dataclass(frozen=True)
class Limits:
    call_seconds: float = 10.0  # wall time of one call, enforced by the grader (kills the child)
    import_seconds: float = 10.0  # wall time to execute the submission's source
    total_seconds: float = 120.0  # wall time of all calls (and re-imports) of one loaded submission
    cpu_seconds: int = 60  # RLIMIT_CPU of one child (all its calls together)
    memory_mb: int = 1024  # address space the child may add on top of the warm worker's
    output_kb: int = 64  # stdout + stderr kept per child; more kills it
    file_size_mb: int = 16  # RLIMIT_FSIZE, and the size of the private /tmp
    open_files: int = 64  # RLIMIT_NOFILE
    processes: int = 32  # RLIMIT_NPROC (threads count too); the pid namespace contains the rest
    result_mb: int = 16  # largest tensor data the child may send back in one reply (more kills it)
    max_restarts: int = 20  # re-forks after fatal errors, per loaded submission
    # wall time of one call of instructor code in the grader (a reference, a catalogued mistake
    # matched for its hint): grader/checking/instructor_limit.py
    instructor_seconds: float = 10.0

    def as_dict(self) -> dict:
        return asdict(self)

    def with_environment(self) -> "Limits":
        """These limits with the overrides of $COURSEGEN_SANDBOX_LIMITS applied, e.g.
        "call_seconds=1,import_seconds=2,output_kb=16" (for CI tuning and tests)."""
        text = os.environ.get(ENVIRONMENT_VARIABLE, "").strip()
        if not text:
            return self
        types = {f.name: f.type for f in fields(self)}
        changes: dict[str, Any] = {}  # int or float, as the field's type says
        for item in text.split(","):
            name, _, value = item.partition("=")
            name = name.strip()
            if name not in types or not value.strip():
                raise ValueError(
                    f"{ENVIRONMENT_VARIABLE}: {item.strip()!r}: expected NAME=NUMBER with NAME one of "
                    f"{', '.join(types)}"
                )
            try:
                changes[name] = float(value) if types[name] in ("float", float) else int(value)
            except ValueError:
                raise ValueError(f"{ENVIRONMENT_VARIABLE}: {name}={value.strip()!r}: expected a number") from None
        return replace(self, **changes)
