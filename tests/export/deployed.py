"""Running an export as it is deployed: a fresh virtual environment (no system site-packages,
nothing of this repository or of the development environment) into which the export's OWN
install commands put exactly what they declare.

The only departures from the real deployment, each named here:

* the CPU torch wheel lies on this machine's disk and pip finds it by the exact pin
  `torch==<version>`, so the install line's `--index-url https://download.pytorch.org/whl/cpu`
  (unreachable here) is dropped; the pin itself is kept;
* setup.sh's `apt-get install` lines are not run: the machine already has Python >= 3.11 and a
  test does not install system packages;
* setup.sh's venv folder (/opt/coursegen) becomes a temporary folder;
* workflow steps that change the host (`sudo ...`) or use a GitHub action (`uses:`) are not run;
* pip compiles no bytecode when it installs (PIP_COMPILE=false): compiling every module of torch, sympy
  and networkx costs more CPU than all the rest of an install, and Python compiles (and keeps, as
  a real machine does: PYTHONDONTWRITEBYTECODE is not passed on) each module when it is first
  imported; the files installed are the same;
* actions/setup-python's Python is a fresh venv whose pip (the newest, as the workflow's own
  `pip install --upgrade pip` makes it) this environment's pip installs (`pip --python`).

The project's own wheel, which test_installed_wheel.py and test_install_without_torch.py install,
is built once per test session (`project_wheel`).
"""

from __future__ import annotations

import ast
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
import zipfile
from dataclasses import dataclass
from pathlib import Path

import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

TORCH_INDEX_OPTION = re.compile(r"\s+--index-url\s+https://download\.pytorch\.org/whl/cpu")
SKIPPED_STEP_PREFIXES = {"sudo ": "changes the host kernel's settings, not the Python environment"}
GITHUB_SHELL = ["bash", "--noprofile", "--norc", "-eo", "pipefail"]  # GitHub's default `run:` shell
REPO = Path(__file__).resolve().parents[2]


def base_python() -> str:
    """The interpreter this venv was made from (a venv of it is fresh: no site-packages of ours)."""
    return getattr(sys, "_base_executable", sys.executable)


def clean_env(extra_path: list[Path] = (), **overrides: str) -> dict[str, str]:
    """os.environ without anything that would let the development environment leak in."""
    dev_bin = str(Path(sys.prefix) / "bin")
    env = {
        k: v
        for k, v in os.environ.items()
        if k
        not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PYTHONSTARTUP", "PYTHONUSERBASE", "PYTHONDONTWRITEBYTECODE")
        and not k.startswith("COURSEGEN_")
    }
    path = [
        p for p in env.get("PATH", "/usr/bin:/bin").split(os.pathsep) if p and p != dev_bin and ".pyenv/shims" not in p
    ]
    env["PATH"] = os.pathsep.join([str(p) for p in extra_path] + path)
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    env["PYTHONNOUSERSITE"] = "1"
    env["PIP_COMPILE"] = "false"  # pip install --no-compile: see the module docstring
    env.update(overrides)
    return env


def run(command: list[str] | str, *, cwd: Path, env: dict[str, str], timeout: int = 900) -> subprocess.CompletedProcess:
    done = subprocess.run(
        command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, shell=isinstance(command, str)
    )
    return done


def must(done: subprocess.CompletedProcess, what: str) -> subprocess.CompletedProcess:
    assert done.returncode == 0, (
        f"{what} failed (exit {done.returncode}):\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    )
    return done


def fresh_venv(venv: Path) -> Path:
    """`python -m venv` without its own pip (ensurepip installs and compiles pip and setuptools,
    seconds of CPU per venv): this environment's pip installs into it (`pip_install`)."""
    must(run([base_python(), "-m", "venv", "--without-pip", str(venv)], cwd=venv.parent, env=clean_env()), "venv")
    assert is_fresh_venv(venv)
    return venv


def pip_install(venv: Path, *args: str) -> subprocess.CompletedProcess:
    """`VENV/bin/python -m pip install ARGS`, run by this environment's pip (pip >= 22.3) for the
    venv's interpreter: it installs into the venv only, resolving against what the venv holds."""
    python = venv / "bin" / "python"
    command = [sys.executable, "-m", "pip", "--python", str(python), "install", *args]
    return must(run(command, cwd=venv.parent, env=clean_env()), f"pip install {' '.join(args)}")


def is_fresh_venv(venv: Path) -> bool:
    config = (venv / "pyvenv.cfg").read_text(encoding="utf-8")
    return re.search(r"include-system-site-packages\s*=\s*false", config) is not None


def installed_distributions(python: Path, env: dict[str, str]) -> dict[str, str]:
    code = (
        "import json, importlib.metadata as m; "
        "print(json.dumps({d.metadata['Name'].lower(): d.version for d in m.distributions()}))"
    )
    return json.loads(must(run([str(python), "-c", code], cwd=python.parent, env=env), "listing").stdout)


# ---- Gradescope ------------------------------------------------------------------------------


@dataclass(frozen=True)
class GradescopeDeployment:
    venv: Path
    python: Path
    image: Path  # the folder standing for /autograder in the image (source/ holds the zip)
    setup_log: str

    def autograder_root(self, folder: Path) -> Path:
        """/autograder for one submission: the image's source/ and run_autograder, an empty
        submission/ and results/ (as Gradescope's harness lays them out)."""
        folder.mkdir(parents=True)
        shutil.copytree(self.image / "source", folder / "source", symlinks=True)
        shutil.copy2(self.image / "source" / "run_autograder", folder / "run_autograder")
        (folder / "submission").mkdir()
        (folder / "results").mkdir()
        return folder


def setup_script_for_this_machine(setup_sh: str, venv: Path, torch: bool = True) -> str:
    """setup.sh with the departures listed in the module docstring; each must apply exactly
    (`torch`: the course requires torch, so setup.sh installs it from the CPU index)."""
    text, count = re.subn(r'^VENV="/opt/coursegen"$', f'VENV="{venv}"', setup_sh, flags=re.MULTILINE)
    assert count == 1, "setup.sh no longer sets VENV=/opt/coursegen: update this test's substitution"
    text, count = re.subn(r"^(\s*)apt-get install", r"\1: apt-get install", text, flags=re.MULTILINE)
    assert count >= 1, "setup.sh no longer installs Python with apt-get: update this test's substitution"
    text, count = TORCH_INDEX_OPTION.subn("", text)
    assert count == int(torch), f"setup.sh installs torch {count} time(s), expected {int(torch)}"
    return text


def deploy_gradescope(zip_path: Path, folder: Path, torch: bool = True) -> GradescopeDeployment:
    """Build the 'image': extract the zip to source/, run its setup.sh as Gradescope does."""
    image = folder / "autograder"
    with zipfile.ZipFile(zip_path) as archive:
        archive.extractall(image / "source")
    for name in ("setup.sh", "run_autograder"):
        (image / "source" / name).chmod(0o755)
    venv = folder / "venv"
    script = folder / "setup-here.sh"
    script.write_text(setup_script_for_this_machine((image / "source" / "setup.sh").read_text(), venv, torch))
    bin_dir = folder / "bin"
    bin_dir.mkdir()
    wrapper = bin_dir / "python3"  # the image's python3
    wrapper.write_text(f'#!/bin/sh\nexec "{base_python()}" "$@"\n')
    wrapper.chmod(0o755)
    env = clean_env([bin_dir], AUTOGRADER_ROOT=str(image))
    done = must(run(["bash", str(script)], cwd=image, env=env), "setup.sh")
    return GradescopeDeployment(venv, venv / "bin" / "python", image, done.stdout + done.stderr)


def run_autograder(deployment: GradescopeDeployment, root: Path) -> tuple[subprocess.CompletedProcess, dict]:
    """run_autograder as Gradescope runs it (cwd /autograder), with the venv setup.sh made."""
    env = clean_env(AUTOGRADER_ROOT=str(root), COURSEGEN_PYTHON=str(deployment.python))
    done = run([str(root / "run_autograder")], cwd=root, env=env, timeout=600)
    results = json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))
    return done, results


# ---- GitHub Classroom ------------------------------------------------------------------------


@dataclass(frozen=True)
class WorkflowStep:
    name: str
    id: str | None
    run: str | None
    uses: str | None
    always: bool


def workflow_steps(workflow_file: Path, job: str = "feedback") -> list[WorkflowStep]:
    data = yaml.safe_load(workflow_file.read_text(encoding="utf-8"))
    steps = []
    for step in data["jobs"][job]["steps"]:
        steps.append(
            WorkflowStep(
                step.get("name", step.get("uses", "")),
                step.get("id"),
                step.get("run"),
                step.get("uses"),
                "always()" in str(step.get("if", "")),
            )
        )
    return steps


def split_at_grading(steps: list[WorkflowStep]) -> tuple[list[WorkflowStep], list[WorkflowStep]]:
    """(the steps that prepare the job, the steps that grade and report)."""
    index = next(i for i, step in enumerate(steps) if step.id == "grade")
    return steps[:index], steps[index:]


def step_script_for_this_machine(script: str) -> str | None:
    """A `run:` script as this machine runs it (None: skipped by a listed rule)."""
    if any(script.lstrip().startswith(prefix) for prefix in SKIPPED_STEP_PREFIXES):
        return None
    return TORCH_INDEX_OPTION.sub("", script)


@dataclass(frozen=True)
class ClassroomRunner:
    """The workflow's job on this machine: a fresh venv standing for actions/setup-python."""

    venv: Path

    def env(self, summary: Path) -> dict[str, str]:
        return clean_env(
            [self.venv / "bin"],
            VIRTUAL_ENV=str(self.venv),
            GITHUB_STEP_SUMMARY=str(summary),
            CI="true",
            GITHUB_ACTIONS="true",
        )

    def run_steps(
        self, repo: Path, steps: list[WorkflowStep], summary: Path
    ) -> list[tuple[WorkflowStep, subprocess.CompletedProcess]]:
        """Run the `run:` steps in order as GitHub does: stop at the first failure except for
        `if: always()` steps."""
        ran, failed = [], False
        for step in steps:
            if step.run is None or (failed and not step.always):
                continue
            script = step_script_for_this_machine(step.run)
            if script is None:
                continue
            done = run([*GITHUB_SHELL, "-c", script], cwd=repo, env=self.env(summary))
            ran.append((step, done))
            failed = failed or done.returncode != 0
        return ran


def new_classroom_runner(folder: Path) -> ClassroomRunner:
    """A fresh venv with pip (see the module docstring), standing for actions/setup-python."""
    venv = fresh_venv(folder / "venv")
    pip_install(venv, "pip")
    return ClassroomRunner(venv)


def shell_words(script: str) -> list[list[str]]:
    return [shlex.split(line) for line in script.splitlines() if line.strip() and not line.strip().startswith("#")]


# ---- what a package imports vs what it declares -------------------------------------------------


def shipped_imports(package: Path) -> dict[str, list[str]]:
    """Top-level third-party names imported anywhere in the package (functions included), except
    under `try: ... except ImportError`: this test's own scan, not the exporter's."""
    own = {p.stem for p in package.glob("*.py")} | {p.name for p in package.iterdir() if (p / "__init__.py").exists()}
    found: dict[str, list[str]] = {}
    for path in sorted(package.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        guarded = {
            id(n)
            for t in ast.walk(tree)
            if isinstance(t, ast.Try) and any("ImportError" in ast.dump(h) or h.type is None for h in t.handlers)
            for stmt in t.body
            for n in ast.walk(stmt)
        }
        for node in ast.walk(tree):
            if id(node) in guarded:
                continue
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module]
                if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module
                else []
            )
            for name in names:
                top = name.split(".")[0]
                if top not in own and top not in sys.stdlib_module_names:
                    found.setdefault(top, []).append(f"{path.relative_to(package)}:{node.lineno}")
    return found


def undeclared_imports(package: Path, not_shipped: set[str]) -> dict[str, list[str]]:
    """Imports of `package` whose distribution its pyproject.toml does not declare. `not_shipped`:
    the project's own modules the package leaves out on purpose, imported only inside functions
    that the exported commands never call (the clean-venv runs prove grading works without them)."""
    project = tomllib.loads((package / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    declared = {canonicalize_name(Requirement(r).name) for r in project["dependencies"]}
    distribution = {"_pytest": "pytest", **{name: None for name in not_shipped}}  # where the names differ
    imported = shipped_imports(package)
    assert {"torch", "tqdm", "click", "pytest"} <= set(imported)  # the scan finds the known ones
    return {
        name: sites
        for name, sites in imported.items()
        if distribution.get(name, name) is not None and canonicalize_name(distribution.get(name, name)) not in declared
    }


# ---- the project's wheel -------------------------------------------------------------------------


def tracked_files() -> list[str]:
    """The repository's files as a clone (plus new, not ignored files) has them."""
    listing = subprocess.run(
        ["git", "-C", str(REPO), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        capture_output=True,
        check=True,
    ).stdout.decode()
    return sorted({name for name in listing.split("\0") if name})


def copy_sources(dest: Path) -> Path:
    for name in tracked_files():
        source, target = REPO / name, dest / name
        if not source.is_symlink() and not source.exists():
            continue  # deleted in the working tree
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_symlink():
            target.symlink_to(source.readlink())
        else:
            shutil.copy2(source, target)
    return dest


def project_wheel(tmp_path_factory) -> Path:
    """The wheel that `pip install .` builds (`pip wheel --no-deps`, build isolation) from a clean
    copy of the sources, built once per test session. Under pytest-xdist the session's folder (the
    parent of each worker's basetemp) holds it: the first worker to come builds it under a file
    lock, the other waits for it and reuses it."""
    from filelock import FileLock

    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # basetemp is <session>/popen-gwN
    folder = base / "project-wheel"
    with FileLock(str(base / "project-wheel.lock")):
        wheels = sorted((folder / "dist").glob("coursegen-*.whl"))
        if not wheels:  # not yet built (or a build that failed half-way: built again)
            shutil.rmtree(folder, ignore_errors=True)
            source = copy_sources(folder / "source")
            command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", str(folder / "dist"), str(source)]
            must(run(command, cwd=folder, env=clean_env()), "pip wheel")
            wheels = sorted((folder / "dist").glob("coursegen-*.whl"))
    (wheel,) = wheels
    return wheel
