"""Stage 4, recording and reporting: results, reports in every format, the gradebook, LMS exports, assignments, proposals."""
