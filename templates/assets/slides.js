/* A lesson's slide deck: reveal.js set up for a lecture room, from file:// with no network.
 *
 * Keys (reveal's own): → / Space next, ← back, S speaker view (notes, next slide, timer),
 * O / Esc overview, F full screen, B black screen; and A: show the answer of an in-class
 * question (the answer is the slide's fragment, so → shows it too).
 * URL: ?print-pdf prints one slide per page (coursegen slides --pdf); ?print-pdf&notes adds
 * each slide's speaker notes below it.
 *
 * A classic script (no modules, no fetch), so it works from file://.
 */
(function () {
  "use strict";
  var script = document.currentScript;
  var answerKey = (script && script.getAttribute("data-answer-key")) || "A";
  var query = window.location.search;
  var printing = /print-pdf/i.test(query);
  var withNotes = /(^|[?&])notes(=|&|$)/i.test(query);

  if (printing) {
    document.documentElement.classList.add("deck-print");
    if (withNotes) { document.documentElement.classList.add("deck-print-notes"); }
  }

  Reveal.initialize({
    width: 1280,
    height: 720,
    margin: 0.04,
    minScale: 0.2,
    maxScale: 2.0,
    center: false,
    hash: true,
    history: false,
    controls: true,
    controlsTutorial: false,
    progress: true,
    slideNumber: "c/t",
    showSlideNumber: "all",
    overview: true,
    transition: "none",
    backgroundTransition: "none",
    fragmentInURL: true,
    pdfSeparateFragments: false,
    pdfMaxPagesPerSlide: 1,
    showNotes: printing && withNotes,
    plugins: [RevealNotes]
  });

  function showAnswer() {
    var slide = Reveal.getCurrentSlide();
    if (!slide) { return; }
    var hidden = slide.querySelector(".question-answer.fragment:not(.visible)");
    if (hidden) { Reveal.nextFragment(); }
  }

  Reveal.addKeyBinding(
    { keyCode: answerKey.toUpperCase().charCodeAt(0), key: answerKey.toUpperCase(), description: "Show the answer" },
    showAnswer
  );
  // Printing with notes: each page grows by NOTES_HEIGHT and the slide's notes fill that space
  // below the slide (reveal itself would lay them over the slide's bottom).
  var NOTES_HEIGHT = 420;
  function notesBelow() {
    var pages = Array.prototype.slice.call(document.querySelectorAll(".pdf-page"));
    if (!pages.length) { return; }
    var width = pages[0].offsetWidth;
    var height = pages[0].offsetHeight;
    pages.forEach(function (page) {
      page.style.height = (height + NOTES_HEIGHT) + "px";
      var notes = page.querySelector(".speaker-notes-pdf");
      if (notes) {
        notes.style.bottom = "auto";
        notes.style.top = (height + 4) + "px";
        notes.style.height = (NOTES_HEIGHT - 12) + "px";
      }
    });
    var style = document.createElement("style");
    style.textContent = "@page { size: " + width + "px " + (height + NOTES_HEIGHT) + "px; margin: 0; }";
    document.head.appendChild(style);
  }
  Reveal.on("pdf-ready", function () {
    if (withNotes) { notesBelow(); }
    document.documentElement.setAttribute("data-deck-printed", "true");
  });
  // Blocks that may scroll (code, outputs, display math, tables: data-region, see assets/regions.js)
  // are a tab stop exactly while they overflow on a slide that is shown; on the other slides and
  // in the speaker notes they are hidden, so they are none.
  function scrolls(element) {
    var style = window.getComputedStyle(element);
    return (/auto|scroll/.test(style.overflowX) && element.scrollWidth > element.clientWidth + 1) ||
      (/auto|scroll/.test(style.overflowY) && element.scrollHeight > element.clientHeight + 1);
  }
  function updateRegions() {
    Array.prototype.forEach.call(document.querySelectorAll(".slides [data-region]"), function (element) {
      // reveal makes the slides not on screen inert and aria-hidden (in its scroll view, on a
      // narrow screen, every slide is on the page and none is)
      var hidden = element.closest('[inert], [aria-hidden="true"], aside.notes');
      if (!hidden && scrolls(element)) { element.setAttribute("tabindex", "0"); } else { element.removeAttribute("tabindex"); }
    });
  }
  ["ready", "slidechanged", "fragmentshown", "fragmenthidden", "resize", "overviewhidden"].forEach(function (name) {
    Reveal.on(name, function () { window.requestAnimationFrame(updateRegions); });
  });
  Reveal.on("ready", function () {
    updateRegions();
    document.documentElement.setAttribute("data-deck-ready", "true");
  });
}());
