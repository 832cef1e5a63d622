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
  // Display math wider than its slide is scaled down to fit (never a scrollbar), to a floor
  // of 60 %; the layout check (coursegen.slides.layout) calls this for every slide it measures.
  function fitMath(root) {
    Array.prototype.forEach.call(root.querySelectorAll(".math.block"), function (block) {
      block.style.fontSize = "";
      var width = block.clientWidth;
      var math = block.querySelector("math") || block;
      var needed = math.scrollWidth || math.getBoundingClientRect().width;
      if (width > 0 && needed > width + 1) {
        block.style.fontSize = Math.max(0.6, (width - 2) / needed).toFixed(3) + "em";
      }
    });
  }
  window.coursegenFit = fitMath;
  // Code line highlights (slide `highlight:`): the latest step shown lights its lines, the others dim.
  function stepLines(slide) {
    if (!slide) { return; }
    Array.prototype.forEach.call(slide.querySelectorAll("figure.example"), function (figure) {
      var shown = figure.querySelectorAll(".line-step.visible");
      var pre = figure.querySelector("pre.highlight");
      if (!pre) { return; }
      var lines = shown.length ? shown[shown.length - 1].getAttribute("data-lines").split(",") : [];
      pre.classList.toggle("stepping", lines.length > 0);
      Array.prototype.forEach.call(pre.querySelectorAll(".code-line"), function (line) {
        line.classList.toggle("hl", lines.indexOf(line.getAttribute("data-line")) >= 0);
      });
    });
  }
  ["slidechanged", "fragmentshown", "fragmenthidden", "ready"].forEach(function (name) {
    Reveal.on(name, function () { var slide = Reveal.getCurrentSlide(); fitMath(slide || document); stepLines(slide); });
  });
  // Printing with notes: each page grows by the height of the tallest slide's notes (none is
  // clipped), the notes below the slide under a label in the deck's language.
  var NOTES_MIN = 120;
  function notesBelow() {
    var pages = Array.prototype.slice.call(document.querySelectorAll(".pdf-page"));
    if (!pages.length) { return; }
    var width = pages[0].offsetWidth;
    var height = pages[0].offsetHeight;
    var label = (script && script.getAttribute("data-notes-label")) || "Speaker notes";
    var tallest = NOTES_MIN;
    pages.forEach(function (page) {
      var notes = page.querySelector(".speaker-notes-pdf");
      if (!notes) { return; }
      if (!notes.querySelector(".notes-label")) {
        var head = document.createElement("span");
        head.className = "notes-label";
        head.textContent = label;
        notes.insertBefore(head, notes.firstChild);
      }
      notes.style.bottom = "auto";
      notes.style.top = (height + 4) + "px";
      notes.style.height = "auto";
      tallest = Math.max(tallest, notes.scrollHeight + 16);
    });
    var NOTES_HEIGHT = Math.ceil(tallest);
    pages.forEach(function (page) {
      page.style.height = (height + NOTES_HEIGHT) + "px";
    });
    var style = document.createElement("style");
    style.textContent = "@page { size: " + width + "px " + (height + NOTES_HEIGHT) + "px; margin: 0; }";
    document.head.appendChild(style);
  }
  Reveal.on("pdf-ready", function () {
    Array.prototype.forEach.call(document.querySelectorAll(".pdf-page"), function (page) { fitMath(page); });
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
