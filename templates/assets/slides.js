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
    showNotes: printing && withNotes ? "separate-page" : false,
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
  Reveal.on("ready", function () { document.documentElement.setAttribute("data-deck-ready", "true"); });
}());
