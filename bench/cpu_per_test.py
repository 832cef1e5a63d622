"""A pytest plugin for bench/test_cpu.py: charges each test with the machine's CPU time while it ran.

Loaded with `-p cpu_per_test` (bench/ on PYTHONPATH) in a run of one process (`-n 0`). For each test it
appends one JSON line to $COURSEGEN_CPU_RECORDS: the test id, its wall time and the CPU time of the
whole machine (user, nice, system, irq, softirq and steal of /proc/stat's first line) over its setup,
call and teardown.
"""

from __future__ import annotations

import json
import os
import time

import pytest

_TICKS = os.sysconf("SC_CLK_TCK")


def machine_cpu_seconds() -> float:
    """CPU time the machine has spent busy since boot, all cores together."""
    with open("/proc/stat", encoding="ascii") as stat:
        user, nice, system, _idle, _iowait, irq, softirq, steal = (int(v) for v in stat.readline().split()[1:9])
    return (user + nice + system + irq + softirq + steal) / _TICKS


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    started, busy = time.monotonic(), machine_cpu_seconds()
    yield
    record = {"id": item.nodeid, "wall": time.monotonic() - started, "cpu": machine_cpu_seconds() - busy}
    with open(os.environ["COURSEGEN_CPU_RECORDS"], "a", encoding="utf-8") as records:
        records.write(json.dumps(record) + "\n")
