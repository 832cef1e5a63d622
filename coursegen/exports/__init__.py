"""Exports of one lesson's autograder to where students submit.

* `classroom.export_classroom`: a GitHub Classroom starter repository. It runs in the
  student's own repository, so it carries only public checks and precomputed expected
  values (grader/replay/), never solutions, mistake hints or hidden checks.
* `gradescope.export_gradescope`: a Gradescope autograder zip. It runs in Gradescope's
  container, out of students' reach, so it carries the full grader.

`package` builds the pip-installable grading package both ship; `files` holds the
deterministic, atomic file writing they share.
"""
