"""Tokens of the grading service: one per student and one for the instructor.

A token is `cg1.<selector>.<secret>`: the selector (8 random bytes, hex) finds the row, the secret
(32 random bytes, URL-safe base64) proves it. Only sha256(secret) is stored (coursegen/service/store.py),
and it is compared with `hmac.compare_digest`, so neither the stored table nor the time a check takes
tells anyone a token. A token is shown once, when issued; a revoked one never works again.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from dataclasses import dataclass

from coursegen.service.store import ServiceStore

PREFIX = "cg1"
ROLES = ("student", "instructor")
INSTRUCTOR = "instructor"
_MAX_TOKEN_CHARS = 200  # anything longer is not one of ours; never hashed


@dataclass(frozen=True)
class Caller:
    student: str  # the student id ("instructor" for the instructor's token)
    role: str

    @property
    def instructor(self) -> bool:
        return self.role == INSTRUCTOR


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("ascii", "replace")).hexdigest()


def issue(store: ServiceStore, student: str, role: str = "student") -> str:
    """A new token for `student`; only its hash is stored. Returns the token (shown once)."""
    if role not in ROLES:
        raise ValueError(f"role {role!r}: expected one of {', '.join(ROLES)}")
    selector = secrets.token_hex(8)
    secret = base64.urlsafe_b64encode(secrets.token_bytes(32)).decode("ascii").rstrip("=")
    store.add_token(selector, _digest(secret), student, role)
    return f"{PREFIX}.{selector}.{secret}"


def authenticate(store: ServiceStore, token: str | None) -> Caller | None:
    """The caller a token belongs to, or None (missing, malformed, unknown, wrong or revoked)."""
    if not token or len(token) > _MAX_TOKEN_CHARS:
        return None
    parts = token.split(".")
    if len(parts) != 3 or parts[0] != PREFIX:
        return None
    _, selector, secret = parts
    row = store.token(selector)
    # compare even when the selector is unknown, so that a miss costs what a wrong secret costs
    stored, student, role, revoked = row if row is not None else ("0" * 64, "", "", None)
    matches = hmac.compare_digest(stored.encode("ascii"), _digest(secret).encode("ascii"))
    if row is None or not matches or revoked is not None:
        return None
    return Caller(student=student, role=role)
