"""Stage 1, reading a submission: the untrusted file's bytes under bounds, a notebook's code, the exercises a file holds."""
