"""The grading service's HTTP API (FastAPI on uvicorn): see docs/service.md.

    POST /api/v1/submissions            multipart `assignment` + one or more `file`; 202 {"id", "status"}
    GET  /api/v1/submissions/{id}       its owner or the instructor: status, score, checks, hints
    GET  /api/v1/submissions?assignment=ID   the caller's own submissions
    GET  /api/v1/assignments            the course's assignments
    GET  /healthz                       liveness and readiness (no token)
    GET  /metrics                       Prometheus text (instructor token)
    GET  /                              the student page

Every refusal is JSON `{"error": CODE, "reason": TEXT}` with its status (401, 404, 413, 422, 429, ...).
A submission is written to disk (fsync) and into the gradebook's queue before the 202 is sent.
"""

from __future__ import annotations

import asyncio
import os
import secrets
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, PlainTextResponse
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException

from grader.reporting.assignments import Assignment
from coursegen.service.door import FailureLimiter, Limits, Refusal, check_files, quota_retry_after
from coursegen.service.grading import LANGS, Graders
from coursegen.service.metrics import Metrics
from coursegen.service.page import student_page
from coursegen.service.store import ServiceStore
from coursegen.service.tokens import Caller, authenticate

API = "/api/v1"
MESSAGES = {
    "en": {
        "queued": "waiting for a grader",
        "grading": "being graded",
        "done": "graded",
        "failed": "could not be graded",
    },
    "zh": {"queued": "等待评分", "grading": "正在评分", "done": "已评分", "failed": "无法评分"},
}


@dataclass
class ServiceConfig:
    gradebook: Path
    uploads: Path
    course_title: str
    assignments: dict[str, Assignment]
    graders: Graders
    limits: Limits = field(default_factory=Limits)
    default_lang: str = "en"


def terms_at(assignment: Assignment, received: datetime, student: str = "") -> tuple[float | None, float]:
    """(lateness in seconds, penalty as a share of the raw score) of a submission of `assignment`
    by `student` received at `received` (UTC, the server's clock): the one place the service
    applies the assignment's due date and late policy (`due:`, `late:` in content/course.yaml,
    the same rules as `coursegen grade`: grader/reporting/lateness.py, with the student's
    extension). (None, 0.0): on time, within the grace period, or no due date. The share is
    fixed at receipt; the points come off the raw score once graded (grading.py)."""
    from grader.reporting.lateness import apply_late_policy

    terms = apply_late_policy(assignment, received, student, 1.0)
    seconds = terms.late_by.total_seconds() if terms.late_by is not None else None
    return seconds, terms.penalty


def pick_lang(request: Request, default: str) -> str:
    """?lang=en|zh, else the first of Accept-Language we speak, else `default`."""
    asked = request.query_params.get("lang")
    if asked in LANGS:
        return asked
    for part in request.headers.get("accept-language", "").split(","):
        code = part.split(";")[0].strip().lower()[:2]
        if code in LANGS:
            return code
    return default


def _refused(refusal: Refusal, metrics: Metrics) -> JSONResponse:
    metrics.refusal(refusal.code)
    headers = {"Retry-After": str(refusal.retry_after)} if refusal.retry_after is not None else {}
    if refusal.status == 401:
        headers["WWW-Authenticate"] = "Bearer"
    return JSONResponse({"error": refusal.code, "reason": refusal.reason}, status_code=refusal.status, headers=headers)


def _write_durably(folder: Path, files: list[tuple[str, bytes]]) -> None:
    """The submission's files, each fsynced, then its folder: on disk before the queue row is."""
    folder.mkdir(parents=True, mode=0o700)
    for name, data in files:
        descriptor = os.open(folder / name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        try:
            os.write(descriptor, data)
            os.fsync(descriptor)
        finally:
            os.close(descriptor)
    for path in (folder, folder.parent):
        descriptor = os.open(path, os.O_RDONLY)
        try:
            os.fsync(descriptor)
        finally:
            os.close(descriptor)


def _remove(folder: Path) -> None:
    for child in folder.iterdir():
        child.unlink()
    folder.rmdir()


def create_app(config: ServiceConfig) -> FastAPI:
    graders = config.graders
    metrics = graders.metrics
    store = ServiceStore(config.gradebook)
    limiter = FailureLimiter(config.limits.auth_failures_per_minute)
    loop: asyncio.AbstractEventLoop | None = None
    from grader.reporting import reports
    from grader.reporting.results import SubmissionResult

    waiting: dict[str, asyncio.Event] = {}  # submissions a client waits on (GET ...?wait=S)

    def finished(submission_id: str) -> None:  # called in the feeding thread
        event = waiting.pop(submission_id, None)
        if event is not None and loop is not None:
            loop.call_soon_threadsafe(event.set)

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        nonlocal loop
        loop = asyncio.get_running_loop()
        graders.on_finished = finished
        graders.start()
        yield
        await run_in_threadpool(graders.stop)
        left = store.counts()
        print(
            f"coursegen service: stopped; {left['queued'] + left['grading']} submission(s) left for the next start",
            flush=True,
        )

    app = FastAPI(
        title="coursegen grading service",
        version="1",
        description="Submit exercises and read their grade (see docs/service.md).",
        lifespan=lifespan,
        docs_url=None,  # the interactive pages load scripts from a CDN; the description is /openapi.json
        redoc_url=None,
    )

    @app.exception_handler(Refusal)
    async def on_refusal(request: Request, exc: Refusal):
        return _refused(exc, metrics)

    @app.exception_handler(StarletteHTTPException)
    async def on_http(request: Request, exc: StarletteHTTPException):
        code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
        return _refused(Refusal(exc.status_code, code, str(exc.detail)), metrics)

    @app.exception_handler(RequestValidationError)
    async def on_invalid(request: Request, exc: RequestValidationError):
        return _refused(Refusal(422, "invalid_request", str(exc.errors()[:3])), metrics)

    def caller_of(request: Request) -> Caller:
        client = request.client.host if request.client else "?"
        wait = limiter.retry_after(client)
        if wait is not None:
            raise Refusal(429, "too_many_failed_logins", "too many failed authentications; try later", wait)
        header = request.headers.get("authorization", "")
        scheme, _, token = header.partition(" ")
        if not header:
            limiter.failed(client)
            raise Refusal(401, "no_token", "send your token as 'Authorization: Bearer TOKEN'")
        caller = authenticate(store, token.strip()) if scheme.lower() == "bearer" else None
        if caller is None:
            limiter.failed(client)
            raise Refusal(401, "bad_token", "this token is not valid (mistyped, or revoked)")
        return caller

    def view(row: dict[str, Any], lang: str) -> dict[str, Any]:
        answer: dict[str, Any] = {
            "id": row["id"],
            "student": row["student"],
            "assignment": row["assignment"],
            "files": row["files"],
            "status": row["status"],
            "message": MESSAGES[lang][row["status"]],
            "submitted_at": row["submitted_at"],
            "finished_at": row["finished_at"],
            "lateness": row["lateness"],
            "penalty_share": row["penalty"],
            "penalty": None,
            "raw_score": row["score"],
            "score": row["score"],
            "max_score": row["max_score"],
            "feedback_lang": row["lang"],
            "reason": row["reason"],
        }
        if row["score"] is not None:  # graded: the share of the raw score comes off it
            from grader.reporting.lateness import share_of

            answer["penalty"], answer["score"] = share_of(row["score"], row["penalty"])
        if row["result"] is not None:
            result = SubmissionResult.from_dict(row["result"])
            report = reports.gradescope_dict(result, graders.course)
            answer["problems"] = [p for p in report["output"].split("\n") if p]
            answer["graded_against"] = result.graded_against
            answer["tests"] = [
                {
                    "name": shown["name"],
                    "score": shown["score"],
                    "max_score": shown["max_score"],
                    "status": shown["status"],
                    "hidden": test.hidden,
                    "output": "" if test.hidden else shown["output"],  # hidden checks: pass/fail only
                }
                for test, shown in zip(result.tests, report["tests"])
            ]
        return answer

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    def page(request: Request) -> HTMLResponse:
        return HTMLResponse(student_page(pick_lang(request, config.default_lang), config.course_title))

    @app.get("/healthz")
    def healthz() -> dict:
        counts = store.counts()
        return {"status": "ok", "ready": graders.ready(), "queued": counts["queued"], "grading": counts["grading"]}

    @app.get("/metrics", response_class=PlainTextResponse)
    def metrics_text(request: Request) -> PlainTextResponse:
        if not caller_of(request).instructor:
            raise Refusal(403, "instructor_only", "the metrics need the instructor's token")
        return PlainTextResponse(metrics.render(store.counts()), media_type="text/plain; version=0.0.4")

    @app.get(f"{API}/assignments")
    def assignments(request: Request) -> dict:
        caller_of(request)
        lang = pick_lang(request, config.default_lang)
        return {
            "assignments": [
                {
                    "id": a.id,
                    "title": (a.title_zh if lang == "zh" and a.title_zh else a.title),
                    "due": a.due,
                    "exercises": list(a.exercises),
                }
                for a in config.assignments.values()
            ]
        }

    @app.post(
        f"{API}/submissions",
        status_code=202,
        openapi_extra={
            "requestBody": {
                "required": True,
                "content": {
                    "multipart/form-data": {
                        "schema": {
                            "type": "object",
                            "required": ["assignment", "file"],
                            "properties": {
                                "assignment": {"type": "string"},
                                "file": {"type": "array", "items": {"type": "string", "format": "binary"}},
                            },
                        }
                    }
                },
            }
        },
    )
    async def submit(request: Request) -> JSONResponse:
        caller = caller_of(request)
        limits = config.limits
        declared = request.headers.get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > limits.max_bytes:
            raise Refusal(413, "too_large", f"the upload is larger than {limits.max_bytes} bytes")
        body = bytearray()
        async for chunk in request.stream():
            body += chunk
            if len(body) > limits.max_bytes:
                raise Refusal(413, "too_large", f"the upload is larger than {limits.max_bytes} bytes")
        whole = bytes(body)

        async def receive() -> dict:
            return {"type": "http.request", "body": whole, "more_body": False}

        try:
            form = await Request(request.scope, receive).form(max_files=limits.max_files + 1, max_fields=8)
        except Exception as exc:  # multipart that cannot be read, or more parts than allowed
            if "Too many files" in str(exc):
                raise Refusal(422, "too_many_files", f"at most {limits.max_files} files per submission") from None
            raise Refusal(
                422, "bad_form", f"expected multipart/form-data with 'assignment' and 'file' ({exc})"
            ) from None
        assignment_id = form.get("assignment")
        if not isinstance(assignment_id, str) or assignment_id not in config.assignments:
            known = ", ".join(config.assignments)
            raise Refusal(422, "unknown_assignment", f"assignment {assignment_id!r}: expected one of {known}")
        uploads = [part for part in form.getlist("file") if not isinstance(part, str)]
        if len(uploads) != len(form.getlist("file")):
            raise Refusal(422, "bad_form", "each 'file' part must be a file")
        names = check_files([str(part.filename or "") for part in uploads], limits)
        files = [(name, await part.read()) for name, part in zip(names, uploads)]
        await form.close()
        lang = pick_lang(request, config.default_lang)
        received = datetime.now(timezone.utc)
        submitted_at = received.isoformat(timespec="milliseconds")
        lateness, penalty = terms_at(config.assignments[assignment_id], received, caller.student)
        submission_id = secrets.token_hex(12)
        folder = config.uploads / submission_id

        def accept() -> tuple[int, str | None] | None:
            _write_durably(folder, files)
            over = store.enqueue(
                submission_id,
                caller.student,
                assignment_id,
                names,
                lang,
                submitted_at,
                lateness=lateness,
                penalty=penalty,
                quota=None if caller.instructor else limits.quota_per_hour,
                since=(received - timedelta(hours=1)).isoformat(timespec="milliseconds"),
            )
            if over is not None:
                _remove(folder)
            return over

        over = await run_in_threadpool(accept)
        if over is not None:
            wait = quota_retry_after(over[0], over[1], limits.quota_per_hour, received)
            raise Refusal(
                429,
                "quota",
                f"{limits.quota_per_hour} submissions to {assignment_id} in an hour; try again later",
                wait,
            )
        graders.wake(lang)
        return JSONResponse(
            {
                "id": submission_id,
                "status": "queued",
                "submitted_at": submitted_at,
                "url": f"{API}/submissions/{submission_id}",
            },
            status_code=202,
        )

    @app.get(f"{API}/submissions/{{submission_id}}")
    async def submission(submission_id: str, request: Request, wait: float = 0.0) -> dict:
        """`wait=S` (at most 30): answer as soon as the submission is done or failed, or after S seconds."""
        caller = caller_of(request)
        lang = pick_lang(request, config.default_lang)
        row = store.get(submission_id) if len(submission_id) <= 64 else None
        if row is None or (row["student"] != caller.student and not caller.instructor):
            raise Refusal(404, "not_found", "no submission of yours has this id")  # another's: not even its existence
        if wait > 0 and row["status"] in ("queued", "grading"):
            event = waiting.setdefault(submission_id, asyncio.Event())
            row = store.get(submission_id) or row  # it may have finished before the event was there
            if row["status"] in ("queued", "grading"):
                try:
                    await asyncio.wait_for(event.wait(), timeout=min(wait, 30.0))
                except asyncio.TimeoutError:
                    pass
                row = store.get(submission_id) or row
        return view(row, lang)

    @app.get(f"{API}/submissions")
    def submissions(request: Request, assignment: str | None = None) -> dict:
        caller = caller_of(request)
        lang = pick_lang(request, config.default_lang)
        rows = store.of_student(caller.student, assignment)
        keep = (
            "id", "assignment", "status", "message", "submitted_at", "raw_score", "score", "max_score", "lateness",
            "penalty",
        )  # fmt: skip
        return {"submissions": [{k: v for k, v in view(row, lang).items() if k in keep} for row in rows]}

    return app


def serve(app: FastAPI, *, host: str, port: int, certfile: Path | None = None, keyfile: Path | None = None) -> None:
    """Run `app` on uvicorn until SIGINT or SIGTERM (then the lifespan's graceful stop runs)."""
    import uvicorn

    uvicorn.run(
        app,
        host=host,
        port=port,
        log_level="warning",
        ssl_certfile=str(certfile) if certfile else None,
        ssl_keyfile=str(keyfile) if keyfile else None,
        timeout_graceful_shutdown=40,
    )


def course_title(root: Path | None, lang: str) -> str:
    """The course's title in `lang` (the page's heading), or "coursegen" when it cannot be read."""
    from ruamel.yaml import YAML

    path = Path(root or ".") / "content" / "course.yaml"
    try:
        title = YAML(typ="safe").load(path.read_text(encoding="utf-8")).get("title")
    except Exception:  # noqa: BLE001 - a title is decoration; `coursegen check` reports a broken course.yaml
        return "coursegen"
    if isinstance(title, dict):
        return str(title.get(lang) or title.get("en") or "coursegen")
    return str(title or "coursegen")
