"""Issue 34, item 2: an LMS's bulk download, graded with `coursegen grade DOWNLOAD --from LMS`,
gives the same per-student scores as the same files in per-student folders. Each download is a
zip (or, for Classroom, a folder of git repositories) written here in the LMS's documented layout;
the per-student folders are graded by the real command too, apart."""

from __future__ import annotations

import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

from .course import grade_locally, make_term_course, student_files, write_student_folders

pytestmark = pytest.mark.slow

IDS = {"two_notebooks": "1001", "two_modules": "1002", "one_module": "1003"}
NAMES = {
    "two_notebooks": ("doejane", "Jane Doe"),
    "two_modules": ("roejohn", "John Roe"),
    "one_module": ("li_wei", "Li Wei"),
}


@pytest.fixture(scope="module")
def term(tmp_path_factory):
    folder = tmp_path_factory.mktemp("lms")
    root = make_term_course(folder / "course")
    files = {case: mine for case, mine in student_files(root).items() if case in IDS}
    batch = write_student_folders(folder / "folders", {IDS[case]: mine for case, mine in files.items()})
    (folder / "ref").mkdir()
    expected = {s: r["score"] for s, r in grade_locally(root, batch, folder / "ref").items()}
    assert len(expected) == 3 and len(set(expected.values())) == 2  # full, full, partial
    return root, files, expected, folder


def graded_from(term, lms: str, download: Path) -> dict[str, float]:
    root, _, _, folder = term
    out = folder / f"out-{lms}"
    out.mkdir()
    return {s: r["score"] for s, r in grade_locally(root, download, out, "--from", lms).items()}


def write_zip(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path


def test_canvas_flat_download_with_resubmissions_and_late_marks(term):
    _, files, expected, folder = term
    members = {}
    for case, mine in files.items():
        login, _ = NAMES[case]
        late = "LATE_" if case == "two_modules" else ""
        for index, (name, data) in enumerate(sorted(mine.items())):
            stem, suffix = name.rsplit(".", 1)
            members[f"{login}_{late}{IDS[case]}_{700 + index}_{stem}-1.{suffix}"] = data  # the resubmission
            members[f"{login}_{late}{IDS[case]}_{600 + index}_{stem}.{suffix}"] = b"def broken(:\n"  # the first try
    members["grades_export.csv"] = b"not a submission\n"
    assert graded_from(term, "canvas", write_zip(folder / "canvas.zip", members)) == expected


def test_gradescope_export_with_submission_metadata(term):
    _, files, expected, folder = term
    metadata, members = [], {}
    for number, (case, mine) in enumerate(files.items(), start=301):
        _, name = NAMES[case]
        metadata.append(
            f"submission_{number}:\n  :submitters:\n  - :name: {name}\n    :sid: '{IDS[case]}'\n"
            f"    :email: {IDS[case]}@example.edu\n  :created_at: 2026-03-02 23:10:05.123456789 -0800\n"
            "  :score: 0.0\n  :status: processed\n"
        )
        for name_, data in mine.items():
            members[f"assignment_42_export/submission_{number}/{name_}"] = data
    members["assignment_42_export/submission_metadata.yml"] = "".join(metadata).encode()
    assert graded_from(term, "gradescope", write_zip(folder / "gradescope.zip", members)) == expected


def test_moodle_download_all_submissions_folders(term):
    _, files, expected, folder = term
    members = {"index.html": b"<html></html>"}
    for case, mine in files.items():
        _, name = NAMES[case]
        for name_, data in mine.items():
            members[f"{name}_{IDS[case]}_assignsubmission_file_/{name_}"] = data
        members[f"{name}_{IDS[case]}_assignsubmission_onlinetext_/onlinetext.html"] = b"<p>done</p>"
    assert graded_from(term, "moodle", write_zip(folder / "moodle.zip", members)) == expected


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_classroom_folder_of_repositories(term):
    _, files, expected, folder = term
    repos = folder / "hw1-submissions"
    for case, mine in files.items():
        repo = repos / f"hw1-{IDS[case]}"
        write_student_folders(repo.parent, {repo.name: mine})
        git = ["git", "-C", str(repo), "-c", "user.name=s", "-c", "user.email=s@example.edu"]
        subprocess.run(["git", "init", "-q", str(repo)], check=True)
        subprocess.run([*git, "add", "-A"], check=True)
        subprocess.run([*git, "commit", "-qm", "done", "--date", "2026-03-02T23:10:05+00:00"], check=True)
    assert graded_from(term, "classroom", repos) == expected


def test_without_from_a_stray_top_level_file_is_not_a_student(term):
    root, files, expected, folder = term
    batch = write_student_folders(folder / "stray", {IDS[case]: mine for case, mine in files.items()})
    (batch / "lms.csv").write_text("student,lms_id\n1001,1001\n")
    (folder / "out-stray").mkdir()
    assert {s: r["score"] for s, r in grade_locally(root, batch, folder / "out-stray").items()} == expected
