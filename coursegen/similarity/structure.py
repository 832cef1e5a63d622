"""Structural evidence: how much of two normalised programs is the same token sequence
(`coursegen similarity`).

The matcher is copydetect's (PyPI `copydetect`, after Stanford MOSS's winnowing): the code is
tokenised by pygments, every name becomes `V`/`F`, every string `S`, and every k-gram of the
filtered text (k = copydetect's default noise threshold, 25 characters; window 1, its default:
every k-gram is kept, so which ones are kept never depends on the process's hash seed) is a
fingerprint. Fingerprints that the course's own code also has are *boilerplate* and removed
before anything is compared: the generated stubs (exercises/<module>.py) and the catalogued
mistakes (solutions/mistakes/<module>.py, the wrong code the course expects students to write
independently), normalised as the submissions are; and fingerprints more than COMMON (half) of
the class have (the only natural way to write a line is nobody's copy).

A pair's structural score is the mean of its two containments: the share of A's fingerprints B
has, and of B's that A has (0 when either has none left), each fingerprint weighted by its rarity
in the class, log(N / n) for n of N students (what many write independently counts for less).
"""

from __future__ import annotations

import io
import logging
import math
from dataclasses import dataclass

import numpy as np

K = 25  # copydetect's default noise threshold (characters of filtered code)
WINDOW = 1  # copydetect's default (guarantee threshold = noise threshold): every k-gram
COMMON = 0.5  # a fingerprint more than this share of the class has is no one's copy
MIN_COMMON_STUDENTS = 3


@dataclass
class Fingerprinted:
    text: str  # the normalised program
    print: object  # copydetect.detector.CodeFingerprint

    @property
    def hashes(self) -> set:
        return self.print.hashes  # type: ignore[attr-defined]


def fingerprint(text: str, boilerplate: np.ndarray | None = None) -> Fingerprinted:
    """The copydetect fingerprints of one normalised program, without `boilerplate`."""
    from copydetect.detector import CodeFingerprint

    logging.getLogger().setLevel(max(logging.getLogger().level, logging.ERROR))  # copydetect warns on empty code
    made = CodeFingerprint(
        "program.py", K, WINDOW, boilerplate=boilerplate if boilerplate is not None else [], fp=io.StringIO(text)
    )
    return Fingerprinted(text, made)


def boilerplate_hashes(texts: list[str]) -> set:
    """Every fingerprint of the course's own code (normalised stubs and mistakes)."""
    found: set = set()
    for text in texts:
        found |= fingerprint(text).hashes
    return found


def class_common(prints: dict[str, Fingerprinted]) -> set:
    """The fingerprints more than COMMON of the class (and at least MIN_COMMON_STUDENTS) have."""
    counts: dict = {}
    for item in prints.values():
        for h in item.hashes:
            counts[h] = counts.get(h, 0) + 1
    limit = max(MIN_COMMON_STUDENTS, COMMON * len(prints))
    return {h for h, n in counts.items() if n > limit}


def scores(prints: dict[str, Fingerprinted], students: list[str]) -> dict[tuple[str, str], tuple[float, int]]:
    """Every pair (a, b), a < b: (structural score, fingerprints shared). Each fingerprint weighs
    log(N / n), n of the N students having it (inverse document frequency): code many students
    write counts for less than code two share."""
    sets = {s: prints[s].hashes for s in students}
    counts: dict = {}
    for hashes in sets.values():
        for h in hashes:
            counts[h] = counts.get(h, 0) + 1
    size = max(len(students), 2)
    weight = {h: math.log(size / n) for h, n in counts.items()}
    totals = {s: sum(weight[h] for h in sets[s]) for s in students}
    found = {}
    for i, a in enumerate(students):
        mine = sets[a]
        for b in students[i + 1 :]:
            theirs = sets[b]
            if not totals[a] or not totals[b]:
                found[(a, b)] = (0.0, 0)
                continue
            common = mine & theirs
            shared = sum(weight[h] for h in common)
            found[(a, b)] = (min(1.0, (shared / totals[a] + shared / totals[b]) / 2), len(common))
    return found


def shared_slices(first: Fingerprinted, second: Fingerprinted) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """The character ranges of each normalised program that the other shares (copydetect's
    compare_files, mapped back from the filtered text)."""
    from copydetect.detector import compare_files

    _, _, (mine, theirs) = compare_files(first.print, second.print)
    return _ranges(mine), _ranges(theirs)


def _ranges(slices) -> list[tuple[int, int]]:
    if len(slices) == 0 or len(slices[0]) == 0:
        return []
    return [(int(start), int(end)) for start, end in zip(slices[0], slices[1])]
