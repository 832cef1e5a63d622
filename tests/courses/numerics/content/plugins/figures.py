"""The course's figures (none yet): @figure functions a lesson can name."""
from __future__ import annotations
