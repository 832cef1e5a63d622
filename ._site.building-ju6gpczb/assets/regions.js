/* Blocks that scroll sideways can be reached with the keyboard, and only those.
 *
 * Code, display formulas, tables and outputs are written as focusable named groups
 * (tabindex="0" role="group" data-region aria-label, see coursegen/markdown.py), so they can be
 * scrolled with the arrow keys even without this script. While such a block fits on the screen
 * it needs no tab stop, so this script takes it away, and gives it back when the block overflows
 * (a narrow window, a larger font). An inline formula wider than a phone scrolls too: it gets a
 * tab stop and a name ("Formula", from data-label) while it overflows.
 *
 * A classic script (no modules), so it works from file://.
 */
(function () {
  "use strict";
  var script = document.currentScript;
  var label = (script && script.getAttribute("data-label")) || "Formula";
  var blocks = Array.prototype.slice.call(document.querySelectorAll("[data-region]"));
  var inline = Array.prototype.slice.call(document.querySelectorAll(".math.inline:not([data-region])"));

  function scrolls(element) {
    var style = window.getComputedStyle(element);
    var sideways = /auto|scroll/.test(style.overflowX) && element.scrollWidth > element.clientWidth + 1;
    var down = /auto|scroll/.test(style.overflowY) && element.scrollHeight > element.clientHeight + 1;
    return sideways || down;
  }

  function update(element) {
    var needed = scrolls(element);
    if (element.hasAttribute("data-region")) {
      if (needed) { element.setAttribute("tabindex", "0"); } else { element.removeAttribute("tabindex"); }
      return;
    }
    if (needed) {
      element.setAttribute("tabindex", "0");
      element.setAttribute("role", "group");
      element.setAttribute("aria-label", label);
    } else {
      element.removeAttribute("tabindex");
      element.removeAttribute("role");
      element.removeAttribute("aria-label");
    }
  }

  function updateAll() {
    blocks.forEach(update);
    inline.forEach(update);
  }

  updateAll();
  if (window.ResizeObserver) {
    var observer = new ResizeObserver(function (entries) {
      entries.forEach(function (entry) { update(entry.target); });
    });
    blocks.concat(inline).forEach(function (element) { observer.observe(element); });
  } else {
    window.addEventListener("resize", updateAll);
  }
  if (document.fonts && document.fonts.ready) { document.fonts.ready.then(updateAll); }
}());
