/* Quiz pages: check answers in the browser, show per-answer feedback and the explanation.
 *
 * A classic script (no modules, no fetch) so it works from file://. The answer key is the
 * object window.COURSEGEN_QUIZ written into the page by coursegen.quiz.site; the checking
 * rules mirror coursegen/quiz/grade.py (same tolerance, same shape and text normalisation).
 */
(function () {
  "use strict";
  var data = window.COURSEGEN_QUIZ;
  if (!data) { return; }
  var ui = data.ui;

  function accepts(tolerance, response, answer) {
    var limit = tolerance.abs !== undefined ? tolerance.abs : tolerance.rel * Math.abs(answer);
    return Math.abs(response - answer) <= limit + 1e-12 * Math.max(1, Math.abs(answer));
  }

  function parseNumber(text) {
    var t = text.replace(/\s+/g, "");
    if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(t)) { return null; }
    return parseFloat(t);
  }

  function parseShape(text) {
    var t = text.trim().replace(/^torch\.Size\((.*)\)$/, "$1");
    if (!/^[\[(]?\s*\d+(\s*(,|x|×|\*)\s*\d+)*\s*,?\s*[\])]?$/.test(t)) { return null; }
    return t.match(/\d+/g).map(Number);
  }

  function normalise(text) {
    var t = text.normalize("NFKC").toLowerCase().trim().replace(/\s+/g, " ");
    return t.replace(/^[ .。!！?？'"“”‘’`]+|[ .。!！?？'"“”‘’`]+$/g, "");
  }

  function sameShape(a, b) {
    return a.length === b.length && a.every(function (n, i) { return n === b[i]; });
  }

  /* -> {score: 0..1, feedback: [html], empty: bool} */
  function check(key, box) {
    var type = key.type;
    if (type === "single" || type === "true_false" || type === "multiple") {
      var chosen = [];
      box.querySelectorAll("input").forEach(function (input, n) { if (input.checked) { chosen.push(n); } });
      if (!chosen.length) { return {empty: true}; }
      var feedback = chosen.map(function (n) { return key.feedback[n]; });
      var right = chosen.length === key.correct.length &&
        chosen.every(function (n) { return key.correct.indexOf(n) >= 0; });
      return {score: right ? 1 : 0, feedback: feedback};
    }
    if (type === "matching") {
      var selects = box.querySelectorAll("select");
      var wrong = [], answered = 0;
      selects.forEach(function (select, k) {
        if (select.value !== "") { answered += 1; }
        if (select.value === "" || Number(select.value) !== key.answer[k]) { wrong.push(k); }
      });
      if (!answered) { return {empty: true}; }
      return {score: 1 - wrong.length / selects.length,
              feedback: wrong.length ? wrong.map(function (k) { return key.feedback[k]; }) : [key.right]};
    }
    var text = box.querySelector("input").value;
    if (!text.trim()) { return {empty: true}; }
    var i;
    if (type === "numeric") {
      var value = parseNumber(text);
      if (value === null) { return {score: 0, feedback: [ui.unreadable]}; }
      if (accepts(key.tolerance, value, key.answer)) { return {score: 1, feedback: [key.right]}; }
      for (i = 0; i < key.wrong.length; i++) {
        if (accepts(key.tolerance, value, key.wrong[i].value)) { return {score: 0, feedback: [key.wrong[i].feedback]}; }
      }
      return {score: 0, feedback: [ui.wrong]};
    }
    if (type === "shape") {
      var shape = parseShape(text);
      if (shape === null) { return {score: 0, feedback: [ui.unreadable]}; }
      if (sameShape(shape, key.answer)) { return {score: 1, feedback: [key.right]}; }
      for (i = 0; i < key.wrong.length; i++) {
        if (sameShape(shape, key.wrong[i].value)) { return {score: 0, feedback: [key.wrong[i].feedback]}; }
      }
      return {score: 0, feedback: [ui.wrong]};
    }
    var said = normalise(text);
    if (key.accepted.some(function (a) { return normalise(a) === said; })) { return {score: 1, feedback: [key.right]}; }
    for (i = 0; i < key.wrong.length; i++) {
      if (normalise(key.wrong[i].value) === said) { return {score: 0, feedback: [key.wrong[i].feedback]}; }
    }
    return {score: 0, feedback: [ui.wrong]};
  }

  function show(box, key) {
    var result = check(key, box);
    var panel = box.querySelector(".quiz-feedback");
    var explanation = box.querySelector(".quiz-explanation");
    // The panel is a live region that exists (empty) from page load: only its content changes,
    // so screen readers announce each new verdict.
    box.classList.remove("quiz-right", "quiz-wrong", "quiz-partly");
    if (result.empty) {
      panel.removeAttribute("data-verdict");  // no answer, no verdict (not the previous one)
      panel.textContent = ui.empty;
      explanation.hidden = true;
      return null;
    }
    var verdict = result.score === 1 ? "right" : result.score > 0 ? "partly" : "wrong";
    box.classList.add("quiz-" + verdict);
    panel.setAttribute("data-verdict", verdict);
    var said = {};
    said[ui[verdict]] = true;  // do not repeat the verdict ("Right.") as feedback
    panel.innerHTML = "<p class=\"quiz-verdict\"><strong>" + ui[verdict] + "</strong></p>" +
      result.feedback.filter(function (html) {
        var plain = html.replace(/<[^>]*>/g, "").trim();
        var fresh = !said[plain];
        said[plain] = true;
        return fresh;
      }).map(function (html) { return "<p class=\"quiz-answer-feedback\">" + html + "</p>"; }).join("");
    explanation.hidden = false;
    return result.score * key.points;
  }

  var boxes = document.querySelectorAll(".quiz-question");
  boxes.forEach(function (box) {
    var key = data.questions[Number(box.getAttribute("data-index"))];
    box.querySelector(".quiz-check").addEventListener("click", function () { show(box, key); });
    // Enter in an answer field checks this question (not while an input method is composing,
    // where Enter picks the characters).
    box.addEventListener("keydown", function (event) {
      var target = event.target;
      if (event.key !== "Enter" || event.isComposing || event.keyCode === 229) { return; }
      if (target.tagName !== "INPUT" || !/^(text|radio|checkbox)$/.test(target.type)) { return; }
      event.preventDefault();
      show(box, key);
    });
  });

  var all = document.querySelector(".quiz-check-all");
  if (all) {
    all.addEventListener("click", function () {
      var total = 0, max = 0;
      boxes.forEach(function (box) {
        var key = data.questions[Number(box.getAttribute("data-index"))];
        total += show(box, key) || 0;
        max += key.points;
      });
      var score = document.querySelector(".quiz-score");  // a live region, empty from page load
      score.textContent = ui.score + ": " + (Math.round(total * 100) / 100) + " / " + max;
    });
  }
}());
