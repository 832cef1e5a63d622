"""Stage 2, running the checks: the trusted pytest session, its plugin, the reference side, one submission's grading."""
