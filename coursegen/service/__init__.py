"""The grading service (`coursegen service`): docs/service.md."""
