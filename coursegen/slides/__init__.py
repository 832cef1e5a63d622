"""Slide decks (reveal.js) from the lessons: `_site/<lang>/slides/<lesson>.html`, and PDF handouts.

- `coursegen.slides.deck`: `render_deck(loaded, lesson, lang, staging, env, variant)` (one deck;
  the build's output is coursegen/outputs/decks.py);
- `coursegen.slides.fit`, `layout`: each deck laid out in Chromium and fitted by rule;
- `coursegen.slides.split`: what of a text goes on the slide and what into the speaker notes;
- `coursegen.slides.quiz`: the in-class variant of each quiz (made in a child, cached);
- `coursegen.slides.pdf`: `coursegen slides --pdf` (headless Chromium through Playwright).

reveal.js is vendored from its npm package at REVEAL_VERSION into
templates/assets/vendor/reveal/ (see the README there); a test compares the two.
"""

from __future__ import annotations

REVEAL_VERSION = "6.0.2"  # templates/assets/vendor/reveal/: `npm pack reveal.js@6.0.2`
