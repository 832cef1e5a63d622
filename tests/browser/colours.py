"""Colour maths for the browser tests: WCAG relative luminance and contrast ratio, and the
JavaScript that finds the colour actually painted behind an element (the first opaque background
up the tree, with translucent layers composited over it)."""

from __future__ import annotations

# JavaScript functions: parse(cssColour) -> {r, g, b, a} | null; over(top, bottom) -> opaque colour;
# background(element) -> the opaque colour behind the element.
COLOUR_HELPERS = r"""
  function parse(value) {
    const m = /rgba?\(([^)]+)\)/.exec(value);
    if (!m) return null;
    const parts = m[1].split(/[\s,\/]+/).filter(Boolean).map(Number);
    return {r: parts[0], g: parts[1], b: parts[2], a: parts.length > 3 ? parts[3] : 1};
  }
  function over(top, bottom) {  // alpha compositing of top over an opaque bottom
    return {r: top.r * top.a + bottom.r * (1 - top.a), g: top.g * top.a + bottom.g * (1 - top.a),
            b: top.b * top.a + bottom.b * (1 - top.a), a: 1};
  }
  const backgrounds = new Map();
  function background(el) {
    if (backgrounds.has(el)) return backgrounds.get(el);
    const result = paintedBehind(el);
    backgrounds.set(el, result);
    return result;
  }
  function paintedBehind(el) {
    const layers = [];
    for (let node = el; node; node = node.parentElement) {
      const colour = parse(getComputedStyle(node).backgroundColor);
      if (colour && colour.a > 0) { layers.push(colour); if (colour.a >= 1) break; }
    }
    let result = matchMedia('(prefers-color-scheme: dark)').matches ? {r: 18, g: 18, b: 18, a: 1} : {r: 255, g: 255, b: 255, a: 1};
    for (let i = layers.length - 1; i >= 0; i--) result = over(layers[i], result);
    return result;
  }
"""


def luminance(c: dict) -> float:
    """WCAG 2 relative luminance of an sRGB colour {r, g, b} (0-255)."""

    def channel(v: float) -> float:
        v = v / 255
        return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4

    return 0.2126 * channel(c["r"]) + 0.7152 * channel(c["g"]) + 0.0722 * channel(c["b"])


def contrast(a: dict, b: dict) -> float:
    """WCAG 2 contrast ratio, 1 to 21."""
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)
