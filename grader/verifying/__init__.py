"""Proving a course: references pass, stubs fail, mistakes are caught and named; the proof cache."""
