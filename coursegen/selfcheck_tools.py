# cell: never
"""The self-check tools cell of a student notebook, shipped as a real file (linted and typed like
the rest of the engine) and never imported: `coursegen.selfcheck_code.tools_cell` reads its text,
keeps the lines between `# cell: with torch` / `# cell: with numpy` and `# cell: end` only for a
course that requires that library, drops every `# cell: never` region (this docstring and the
declarations of `_MESSAGES` and `_SUBMISSION`, which the cell defines last, in the notebook's
language) and the marker lines themselves. The `# cell: with service` regions (`submit()`) reach
the cell only when the course's `submission:` route is `service`. The rest reaches the notebook byte for byte: edit it as notebook code
(plain Python and the course's libraries, no import of this project).
"""
# cell: end
import math as _math
# cell: with numpy

import numpy
# cell: end
# cell: with torch

import torch
# cell: end
# cell: with service

import getpass as _getpass
import json as _json
import os as _os
import time as _time
import urllib.error as _urlerror
import urllib.parse as _urlparse
import urllib.request as _urlrequest
import uuid as _uuid
from pathlib import Path as _Path
# cell: end


class _SelfCheckFailure(Exception):
    """A self-check that does not hold; its message says where and how."""


def _expect(condition, shown=None):
    if not condition:
        raise _SelfCheckFailure(_MESSAGES["does_not_hold"] if shown is None else _MESSAGES["got"].format(shown=shown))


def _expect_close(actual, expected, atol=1e-5, rtol=1e-4):
    difference = _first_difference(actual, expected, atol, rtol, "result")
    if difference is not None:
        raise _SelfCheckFailure(difference)


def _expect_raises(error_type, function):
    try:
        function()
    except error_type:
        return
    except NotImplementedError:
        raise
    except Exception as exc:
        raise _SelfCheckFailure(_MESSAGES["wrong_raised"].format(
            expected=error_type.__name__, kind=type(exc).__name__, message=exc))
    raise _SelfCheckFailure(_MESSAGES["not_raised"].format(expected=error_type.__name__))


def _first_difference(actual, expected, atol, rtol, where):
    """None when actual matches expected, else one sentence naming the first difference."""
# cell: with torch
    if isinstance(expected, torch.Tensor):
        if not isinstance(actual, torch.Tensor):
            return _MESSAGES["type"].format(where=where, expected="torch.Tensor", actual=type(actual).__name__)
        if tuple(actual.shape) != tuple(expected.shape):
            return _MESSAGES["shape"].format(where=where, expected=list(expected.shape), actual=list(actual.shape))
        if actual.dtype != expected.dtype:
            return _MESSAGES["dtype"].format(where=where, expected=expected.dtype, actual=actual.dtype)
        actual = actual.detach()
        if expected.dtype.is_floating_point:
            same = torch.isclose(actual, expected, rtol=rtol, atol=atol, equal_nan=True)
        else:
            same = actual == expected
        if bool(same.all()):
            return None
        index = tuple(int(i) for i in (~same).nonzero()[0])
        error = (actual.double() - expected.double()).abs().max().item()
        return _MESSAGES["value"].format(where=where, index=list(index), expected=expected[index].item(),
                                         actual=actual[index].item(), error=f"{error:.3g}")
# cell: end
# cell: with numpy
    if isinstance(expected, numpy.ndarray):
        if not isinstance(actual, numpy.ndarray):
            return _MESSAGES["type"].format(where=where, expected="numpy.ndarray", actual=type(actual).__name__)
        if actual.shape != expected.shape:
            return _MESSAGES["shape"].format(where=where, expected=list(expected.shape), actual=list(actual.shape))
        if actual.dtype != expected.dtype:
            return _MESSAGES["dtype"].format(where=where, expected=expected.dtype, actual=actual.dtype)
        if expected.dtype.kind in "fc":
            same = numpy.isclose(actual, expected, rtol=rtol, atol=atol, equal_nan=True)
        else:
            same = actual == expected
        if bool(same.all()):
            return None
        index = tuple(int(i) for i in numpy.argwhere(~same)[0])
        error = float(numpy.abs(actual.astype(complex) - expected.astype(complex)).max())
        return _MESSAGES["value"].format(where=where, index=list(index), expected=expected[index].item(),
                                         actual=actual[index].item(), error=f"{error:.3g}")
# cell: end
    if isinstance(expected, (list, tuple)):
        if not isinstance(actual, (list, tuple)):
            return _MESSAGES["type"].format(where=where, expected=type(expected).__name__, actual=type(actual).__name__)
        if len(actual) != len(expected):
            return _MESSAGES["length"].format(where=where, expected=len(expected), actual=len(actual))
        for i, (a, e) in enumerate(zip(actual, expected)):
            difference = _first_difference(a, e, atol, rtol, f"{where}[{i}]")
            if difference is not None:
                return difference
        return None
    if isinstance(expected, bool) or isinstance(expected, int):
        if type(actual) is not type(expected):
            return _MESSAGES["type"].format(where=where, expected=type(expected).__name__, actual=type(actual).__name__)
    if isinstance(expected, float):
        if isinstance(actual, (int, float)) and not isinstance(actual, bool) and _math.isclose(actual, expected, rel_tol=rtol, abs_tol=atol):
            return None
    elif actual == expected:
        return None
    return _MESSAGES["scalar"].format(where=where, expected=repr(expected), actual=repr(actual))


def _run_selfcheck(name, cases, properties):
    """Run the cases, then the properties; print one line: pass, fail (first difference) or not implemented."""
    def explain(exc):
        if isinstance(exc, NotImplementedError):
            frame = exc.__traceback__
            while frame.tb_next is not None:
                frame = frame.tb_next
            raised_in = frame.tb_frame.f_code.co_name
            if raised_in != name and not raised_in.startswith("_") and raised_in not in ("forward", "<lambda>"):
                print(_MESSAGES["todo_other"].format(name=name, other=raised_in))
                return "printed"
            return "todo"
        if isinstance(exc, NameError) and name in str(exc):
            return "undefined"
        return None

    for number, (label, compute, expected, atol, rtol) in enumerate(cases, 1):
        try:
            actual = compute()
        except Exception as exc:
            verdict = explain(exc)
            if verdict == "printed":
                pass
            elif verdict:
                print(_MESSAGES[verdict].format(name=name))
            else:
                detail = _MESSAGES["raised"].format(kind=type(exc).__name__, message=exc)
                print(_MESSAGES["fail_case"].format(name=name, number=number, label=label, detail=detail))
            return
        difference = _first_difference(actual, expected, atol, rtol, "result")
        if difference is not None:
            print(_MESSAGES["fail_case"].format(name=name, number=number, label=label, detail=difference))
            return
    for label, check in properties:
        try:
            check()
        except _SelfCheckFailure as exc:
            print(_MESSAGES["fail_property"].format(name=name, label=label, detail=exc))
            return
        except Exception as exc:
            verdict = explain(exc)
            if verdict == "printed":
                pass
            elif verdict:
                print(_MESSAGES[verdict].format(name=name))
            else:
                detail = _MESSAGES["raised"].format(kind=type(exc).__name__, message=exc)
                print(_MESSAGES["fail_property"].format(name=name, label=label, detail=detail))
            return
    print(_MESSAGES["pass"].format(name=name, cases=len(cases), properties=len(properties)))
# cell: with service


_submit_token = None  # a token typed at the prompt, kept in this kernel's memory only (never in the notebook)


def submit(assignment=None, *, path=None, token=None, wait=120):
    """Send this notebook to the course's grading service and print the grade and feedback.

    Save the notebook first: the file on disk is what is graded. The file is the one Jupyter or
    VS Code says this notebook is, else this lesson's notebook name in the current folder; pass
    `path` when it is elsewhere. The assignment's other notebooks found beside it are sent too.
    The token: `token`, else the environment variable COURSEGEN_TOKEN, else a prompt (kept in
    this kernel's memory only, never written into the notebook).
    """
    global _submit_token
    choices = _SUBMISSION["assignments"]
    if assignment is None:
        if len(choices) != 1:
            print(_MESSAGES["submit_which"].format(choices=", ".join(choices), first=next(iter(choices))))
            return
        assignment = next(iter(choices))
    if assignment not in choices:
        print(_MESSAGES["submit_unknown"].format(assignment=assignment, choices=", ".join(choices)))
        return
    notebook = _notebook_file(path)
    if notebook is None:
        print(_MESSAGES["submit_no_notebook"].format(name=path or _SUBMISSION["notebook"]))
        return
    files: list = [notebook]
    missing: list = []
    for name in choices[assignment]:
        if name != _SUBMISSION["notebook"] and name != notebook.name:
            beside = notebook.parent / name
            (files if beside.is_file() else missing).append(beside)
    typed = False
    if not token:
        token = _os.environ.get("COURSEGEN_TOKEN") or _submit_token
    if not token:
        token, typed = _getpass.getpass(_MESSAGES["submit_token_prompt"]).strip(), True
    if not token:
        return
    saved = _time.strftime("%H:%M:%S", _time.localtime(notebook.stat().st_mtime))
    print(_MESSAGES["submit_sending"].format(
        files=", ".join(f.name for f in files), assignment=assignment, url=_SUBMISSION["url"], saved=saved))
    if missing:
        print(_MESSAGES["submit_missing"].format(files=", ".join(f.name for f in missing), folder=notebook.parent))
    try:
        body, content_type = _multipart(assignment, files)
        status, answer = _service_call("api/v1/submissions", token, body, content_type)
        if status == 401:
            _submit_token = None
            print(_MESSAGES["submit_bad_token"].format(reason=answer.get("reason", "")))
            return
        if status != 202:
            print(_MESSAGES["submit_refused"].format(status=status, reason=answer.get("reason", answer)))
            return
        if typed:
            _submit_token = token
        print(_MESSAGES["submit_queued"].format(id=answer["id"]))
        deadline = _time.monotonic() + wait
        while answer.get("status") not in ("done", "failed") and _time.monotonic() < deadline:
            seconds = max(1, min(20, int(deadline - _time.monotonic())))
            status, answer = _service_call(f"api/v1/submissions/{answer['id']}?wait={seconds}", token)
            if status != 200:
                print(_MESSAGES["submit_refused"].format(status=status, reason=answer.get("reason", answer)))
                return
    except (_urlerror.URLError, OSError, ValueError) as exc:
        print(_MESSAGES["submit_unreachable"].format(url=_SUBMISSION["url"], reason=getattr(exc, "reason", exc)))
        return
    _print_grade(answer)


def _notebook_file(path):
    """This notebook's file: `path`, else what the editor says, else the lesson's notebook name here."""
    if path is not None:
        given = _Path(path).expanduser()
        return given.resolve() if given.is_file() else None
    candidates = []
    for said in (globals().get("__vsc_ipynb_file__"), _os.environ.get("JPY_SESSION_NAME")):
        if said:
            candidates += [_Path(said), _Path.cwd() / _Path(said).name]
    candidates.append(_Path.cwd() / _SUBMISSION["notebook"])
    for candidate in candidates:
        if candidate.suffix == ".ipynb" and candidate.is_file():
            return candidate.resolve()
    return None


def _multipart(assignment, files):
    """multipart/form-data: the field `assignment` and one part `file` per file."""
    boundary = "coursegen-" + _uuid.uuid4().hex
    parts = [f'--{boundary}\r\nContent-Disposition: form-data; name="assignment"\r\n\r\n{assignment}\r\n'.encode()]
    for file in files:
        name = file.name.replace("\\", "%5C").replace('"', "%22")
        head = (f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{name}"\r\n'
                "Content-Type: application/octet-stream\r\n\r\n")
        parts.append(head.encode() + file.read_bytes() + b"\r\n")
    parts.append(f"--{boundary}--\r\n".encode())
    return b"".join(parts), f"multipart/form-data; boundary={boundary}"


def _service_call(route, token, body=None, content_type=None):
    """(HTTP status, JSON answer) of one request to the grading service, in the notebook's language."""
    base = _SUBMISSION["url"] if _SUBMISSION["url"].endswith("/") else _SUBMISSION["url"] + "/"
    url = _urlparse.urljoin(base, route)
    url += ("&" if "?" in url else "?") + "lang=" + _SUBMISSION["lang"]
    headers = {"Authorization": "Bearer " + token, "Accept": "application/json",
               "Accept-Language": _SUBMISSION["lang"]}
    if content_type is not None:
        headers["Content-Type"] = content_type
    request = _urlrequest.Request(url, data=body, headers=headers, method="GET" if body is None else "POST")
    try:
        with _urlrequest.urlopen(request, timeout=60) as response:
            return response.status, _json.loads(response.read() or b"{}")
    except _urlerror.HTTPError as error:
        try:
            answer = _json.loads(error.read() or b"{}")
        except ValueError:
            answer = {}
        return error.code, answer if isinstance(answer, dict) else {}


def _print_grade(answer):
    """The score, then every check with its feedback (hidden checks: pass/fail only)."""
    def number(value):
        return f"{float(value):.6g}"

    if answer.get("status") == "failed":
        print(_MESSAGES["submit_failed"].format(reason=answer.get("reason") or ""))
        return
    if answer.get("status") != "done":
        print(_MESSAGES["submit_pending"].format(id=answer.get("id", "")))
        return
    print(_MESSAGES["submit_score"].format(
        assignment=answer["assignment"], score=number(answer["score"]), max_score=number(answer["max_score"])))
    if answer.get("penalty"):
        print(_MESSAGES["submit_late"].format(hours=number((answer.get("lateness") or 0) / 3600),
                                              penalty=number(answer["penalty"])))
    for problem in answer.get("problems", []):
        print("  " + problem)
    for test in answer.get("tests", []):
        mark = "[PASS]" if test["status"] == "passed" else "[FAIL]"
        hidden = _MESSAGES["submit_hidden"] if test.get("hidden") else ""
        print(f"{mark} {test['name']}{hidden}: {number(test['score'])}/{number(test['max_score'])}")
        for line in (test.get("output") or "").splitlines():
            print("    " + line)
# cell: never


_MESSAGES: dict[str, str] = {}  # the cell defines it last, in the notebook's language
_SUBMISSION: dict = {}  # with route service, the cell defines it last: url, lang, notebook, assignments
# cell: end
