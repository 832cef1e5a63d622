"""`python -m coursegen ...`: the `coursegen` command."""

from coursegen.cli import main

if __name__ == "__main__":
    main()
