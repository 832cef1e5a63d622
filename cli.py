"""`python cli.py ...` from a checkout: the same command line as the installed `coursegen`.

The command-line code is coursegen/cli.py and coursegen/commands/ (installed as `coursegen.cli`);
this file only lets a checkout run it without installing anything (bench/ and the docs use it).
It is not installed.
"""

from coursegen.cli import main

if __name__ == "__main__":
    main()
