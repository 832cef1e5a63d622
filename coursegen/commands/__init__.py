"""The commands of `coursegen`, one module per command group; coursegen/cli.py registers them.

Each command is thin: it parses its options (click), calls one engine (coursegen.* for
building, grader.* for grading) and reports what it did. Engines are imported inside the
commands, so that `coursegen --help` and a no-change rebuild stay fast (no torch). What the
commands share (--root, content errors, ending the process) is in _common.py.

The modules import each other relatively: an exported grading package ships this folder with
cli.py as its `coursegen_cli` package (coursegen/exports/package.py), without `coursegen`.
"""
