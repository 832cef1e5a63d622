"""An LMS's bulk download of submissions, laid out as a batch: one folder per student.

    arrange(download, lms, dest) -> Arranged     `coursegen grade DOWNLOAD --from LMS`

`download` is the zip the LMS gives, or the folder it unpacks to. What each LMS writes, and the
student id taken from it (the id its grade import and a roster use):

* canvas: flat files `login[_LATE|_late]_userid_submissionid_name.ext` ("Download Submissions"),
  a resubmitted file's name carrying `-1`, `-2`, ... before its extension (`hw1-2.py`). Student id:
  the Canvas user id (the "ID" column of a Canvas gradebook). The suffix is dropped (`hw1.py`);
  where two files of a student then share a name, the highest suffix (the latest upload) is kept.
  The LATE mark is kept as `late_marked` (no time is given).
* gradescope: "Export Submissions": `submission_metadata.yml` (keys `submission_<n>`, each with
  `:submitters:` [{`:name:`, `:sid:`, `:email:`}] and `:created_at:`) beside one folder per
  submission, possibly inside one top folder. Student id: the submitter's `:sid:` (student id),
  else the e-mail; a group submission is every submitter's. The time is `:created_at:`.
* moodle: "Download all submissions": folders (or, without "download submissions in folders",
  flat files) `Full Name_12345_assignsubmission_file_[name]`. Student id: the participant
  number (12345, Moodle's "Identifier"). Online-text parts are skipped.
* classroom: a folder of GitHub Classroom repositories (`gh classroom clone student-repos`):
  `<assignment>-<username>/`. Student id: the GitHub user name (the folder name without the
  prefix all the folders share). The time is the last commit's (`git log -1`, committer date).

Only regular files are copied, never through a link, and only .py and .ipynb (the grader reads
nothing else); everything left out is listed in `notes`. Nothing here runs a submission.
"""

from __future__ import annotations

from grader.errors import CoursegenError

import datetime
import os
import re
import shutil
import stat
import subprocess
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

LMS_NAMES = ("canvas", "gradescope", "moodle", "classroom")
CODE_SUFFIXES = (".py", ".ipynb")
MAX_MEMBER_BYTES = 50 * 1024 * 1024  # a zip member larger than this is not unpacked
MAX_MEMBERS = 100_000

CANVAS_NAME = re.compile(r"^(?P<login>.+?)_(?:(?P<late>late|LATE)_)?(?P<user>\d+)_(?P<sub>\d+)_(?P<name>.+)$")
RESUBMISSION = re.compile(r"^(?P<stem>.+?)-(?P<n>\d+)(?P<suffix>\.[A-Za-z]+)$")
MOODLE_NAME = re.compile(r"^(?P<name>.+?)_(?P<id>\d+)_assignsubmission_(?P<plugin>[a-z]+)_(?P<rest>.*)$")


class DownloadError(CoursegenError):
    """The download is not in the layout of the LMS named (one sentence, with the path)."""


@dataclass
class Arranged:
    folder: Path  # one sub-folder per student
    submitted_at: dict[str, datetime.datetime] = field(default_factory=dict)  # student -> time (aware)
    late_marked: set[str] = field(default_factory=set)  # students the LMS marked late, without a time
    notes: list[str] = field(default_factory=list)  # what was left out, one line each
    lms: str = ""  # the LMS named (where the times came from)


def arrange(download: Path, lms: str, dest: Path) -> Arranged:
    """Lay `download` (a zip or a folder) out in `dest` (created, must not exist) as one folder
    per student; DownloadError when it is not the layout of `lms`."""
    if lms not in LMS_NAMES:
        raise DownloadError(f"--from {lms!r}: expected one of {', '.join(LMS_NAMES)}")
    download, dest = Path(download), Path(dest)
    dest.mkdir(parents=True)
    source = download
    if download.is_file():
        if not zipfile.is_zipfile(download):
            raise DownloadError(f"{download}: not a zip file nor a folder")
        source = dest.parent / (dest.name + "-unpacked")
        _unzip(download, source)
    elif not download.is_dir():
        raise DownloadError(f"{download}: no such file or folder")
    arranged = Arranged(dest / "students", lms=lms)
    arranged.folder.mkdir()
    {"canvas": _canvas, "gradescope": _gradescope, "moodle": _moodle, "classroom": _classroom}[lms](source, arranged)
    if not any(arranged.folder.iterdir()):
        raise DownloadError(
            f"{download}: no submission in the layout of a {lms} download (see `coursegen grade --help`)"
        )
    return arranged


# ---- reading without following links ---------------------------------------------------------


def _unzip(archive: Path, dest: Path) -> None:
    """Every member to `dest` (names made safe: no absolute path, no `..`), none larger than
    MAX_MEMBER_BYTES; links in the zip are written as plain files holding their target's name."""
    dest.mkdir(parents=True)
    with zipfile.ZipFile(archive) as opened:
        members = opened.infolist()
        if len(members) > MAX_MEMBERS:
            raise DownloadError(f"{archive}: more than {MAX_MEMBERS} entries")
        for member in members:
            parts = [p for p in member.filename.replace("\\", "/").split("/") if p not in ("", ".", "..")]
            if not parts or member.is_dir() or member.file_size > MAX_MEMBER_BYTES:
                continue
            target = dest.joinpath(*parts)
            target.parent.mkdir(parents=True, exist_ok=True)
            with opened.open(member) as stream, open(target, "wb") as out:
                shutil.copyfileobj(stream, out)


def _regular(path: Path) -> bool:
    """A regular file with one name (never a link, never a second name of another file)."""
    try:
        info = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISREG(info.st_mode) and info.st_nlink == 1


def _copy(source: Path, dest: Path, notes: list[str], shown: str) -> bool:
    if not _regular(source):
        notes.append(f"{shown}: not a regular file (a link, or a file with several names): left out")
        return False
    if source.suffix.lower() not in CODE_SUFFIXES:
        notes.append(f"{shown}: not a .py or .ipynb file: left out")
        return False
    dest.parent.mkdir(parents=True, exist_ok=True)
    with open(source, "rb", opener=lambda p, f: os.open(p, f | os.O_NOFOLLOW)) as handle:
        dest.write_bytes(handle.read())
    return True


def _walk(folder: Path) -> list[Path]:
    """Files below `folder` (links listed, never entered; hidden names and __MACOSX skipped), sorted."""
    found: list[Path] = []
    pending = [folder]
    while pending:
        top = pending.pop()
        try:
            items = sorted(os.scandir(top), key=lambda e: e.name)
        except OSError:
            continue
        for item in items:
            if item.name.startswith(".") or item.name == "__MACOSX":
                continue
            if item.is_dir(follow_symlinks=False):
                pending.append(Path(item.path))
            else:
                found.append(Path(item.path))
    return sorted(found)


def _safe_id(text: str) -> str:
    """A student id usable as a folder name."""
    cleaned = re.sub(r"[^\w.@+-]", "_", text.strip())
    return cleaned.lstrip(".") or "unknown"


# ---- Canvas ----------------------------------------------------------------------------------


def _canvas(source: Path, arranged: Arranged) -> None:
    chosen: dict[tuple[str, str], tuple[int, Path]] = {}  # (student, name) -> (resubmission, file)
    for path in _walk(source):
        shown = path.relative_to(source).as_posix()
        match = CANVAS_NAME.match(path.name)
        if match is None:
            arranged.notes.append(f"{shown}: not a Canvas submission name (login_userid_submissionid_name): left out")
            continue
        student = match["user"]
        name, number = match["name"], 0
        resubmitted = RESUBMISSION.match(name)
        if resubmitted:
            name, number = resubmitted["stem"] + resubmitted["suffix"], int(resubmitted["n"])
        if match["late"]:
            arranged.late_marked.add(student)
        key = (student, name)
        if key not in chosen or number > chosen[key][0]:
            if key in chosen:
                arranged.notes.append(f"{chosen[key][1].relative_to(source).as_posix()}: an earlier upload of {name}")
            chosen[key] = (number, path)
        else:
            arranged.notes.append(f"{shown}: an earlier upload of {name}")
    for (student, name), (_, path) in sorted(chosen.items()):
        _copy(path, arranged.folder / student / name, arranged.notes, path.relative_to(source).as_posix())


# ---- Gradescope ------------------------------------------------------------------------------


def _gradescope(source: Path, arranged: Arranged) -> None:
    try:  # coursegen's YAML reader; a grading package (which never reads a download) may lack it
        from ruamel.yaml import YAML, YAMLError
    except ImportError:
        raise DownloadError("reading a Gradescope export needs ruamel.yaml (pip install coursegen)") from None

    candidates = [source / "submission_metadata.yml", *sorted(source.glob("*/submission_metadata.yml"))]
    metadata_file = next((p for p in candidates if _regular(p)), None)
    if metadata_file is None:
        raise DownloadError(f"{source}: no submission_metadata.yml (a Gradescope export holds one)")
    try:
        metadata = YAML(typ="safe", pure=True).load(metadata_file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, YAMLError) as exc:
        raise DownloadError(f"{metadata_file}: cannot read it ({exc})") from None
    if not isinstance(metadata, dict):
        raise DownloadError(f"{metadata_file}: expected a mapping of submission folders")
    base = metadata_file.parent
    for folder_name, record in sorted(metadata.items(), key=lambda kv: str(kv[0])):
        record = record if isinstance(record, dict) else {}
        submitters = record.get(":submitters") or record.get("submitters") or []
        ids = [
            _safe_id(str(s.get(":sid") or s.get("sid") or s.get(":email") or s.get("email") or ""))
            for s in submitters
            if isinstance(s, dict)
        ]
        ids = [i for i in ids if i != "unknown"]
        if not ids:
            arranged.notes.append(f"{folder_name}: no submitter with a student id or e-mail: left out")
            continue
        when = _time(record.get(":created_at", record.get("created_at")))
        folder = base / str(folder_name)
        if not folder.is_dir() or folder.is_symlink():
            arranged.notes.append(f"{folder_name}: listed in submission_metadata.yml, no such folder: left out")
            continue
        for student in ids:
            if when is not None:
                arranged.submitted_at[student] = when
            (arranged.folder / student).mkdir(exist_ok=True)
            for path in _walk(folder):
                relative = path.relative_to(folder)
                _copy(
                    path, arranged.folder / student / relative, arranged.notes, f"{folder_name}/{relative.as_posix()}"
                )


def _time(value: object) -> datetime.datetime | None:
    """A time as Gradescope writes it (`2026-03-02 23:10:05.123456789 -0800`, or parsed by YAML)."""
    if isinstance(value, datetime.datetime):
        return value if value.tzinfo else value.replace(tzinfo=datetime.timezone.utc)
    if not isinstance(value, str):
        return None
    text = re.sub(r"(\.\d{6})\d+", r"\1", value.strip())  # nanoseconds -> microseconds
    for pattern in ("%Y-%m-%d %H:%M:%S.%f %z", "%Y-%m-%d %H:%M:%S %z"):
        try:
            return datetime.datetime.strptime(text, pattern)
        except ValueError:
            pass
    try:
        parsed = datetime.datetime.fromisoformat(text)
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=datetime.timezone.utc)


# ---- Moodle ----------------------------------------------------------------------------------


def _moodle(source: Path, arranged: Arranged) -> None:
    for child in sorted(source.iterdir()):
        match = MOODLE_NAME.match(child.name)
        if match is None:
            if not child.name.startswith("."):
                arranged.notes.append(f"{child.name}: not a Moodle submission name (Name_12345_assignsubmission_...)")
            continue
        if match["plugin"] != "file":
            arranged.notes.append(f"{child.name}: a Moodle {match['plugin']} part, not a file: left out")
            continue
        student = match["id"]
        if child.is_dir() and not child.is_symlink():
            (arranged.folder / student).mkdir(exist_ok=True)
            for path in _walk(child):
                relative = path.relative_to(child)
                _copy(path, arranged.folder / student / relative, arranged.notes, f"{child.name}/{relative.as_posix()}")
        elif match["rest"]:
            _copy(child, arranged.folder / student / match["rest"], arranged.notes, child.name)


# ---- GitHub Classroom ------------------------------------------------------------------------


def _classroom(source: Path, arranged: Arranged) -> None:
    repos = [c for c in sorted(source.iterdir()) if c.is_dir() and not c.is_symlink() and not c.name.startswith(".")]
    prefix = _shared_prefix([r.name for r in repos])
    for repo in repos:
        student = _safe_id(repo.name[len(prefix) :] or repo.name)
        (arranged.folder / student).mkdir(exist_ok=True)
        for path in _walk(repo):
            relative = path.relative_to(repo)
            if relative.suffix.lower() in CODE_SUFFIXES:
                _copy(path, arranged.folder / student / relative, arranged.notes, f"{repo.name}/{relative.as_posix()}")
        when = last_commit_time(repo)
        if when is not None:
            arranged.submitted_at[student] = when
        elif (repo / ".git").exists():
            arranged.notes.append(f"{repo.name}: the last commit's time cannot be read")


def _shared_prefix(names: list[str]) -> str:
    """The prefix, up to and including a '-', that every name shares (the assignment's slug)."""
    if len(names) < 2:
        return ""
    common = os.path.commonprefix(names)
    cut = common.rfind("-")
    return common[: cut + 1] if cut >= 0 else ""


def last_commit_time(repo: Path) -> datetime.datetime | None:
    """The committer date of HEAD, read with git with the repository's hooks and helpers off."""
    if not (repo / ".git").exists():
        return None
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull, GIT_TERMINAL_PROMPT="0")
    try:
        done = subprocess.run(
            ["git", "-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null", "-c", f"safe.directory={repo}",
             "-C", str(repo), "log", "-1", "--format=%cI", "HEAD"],
            capture_output=True, text=True, env=env, timeout=30, check=False,
        )  # fmt: skip
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    try:
        return datetime.datetime.fromisoformat(done.stdout.strip())
    except ValueError:
        return None
