/* Client-side search over window.COURSEGEN_SEARCH_INDEX (assets/search-index.js).
   Classic script that needs no network request, so it works from file://. A query matches an entry when every
   query word occurs in it; Chinese runs also match when all their character bigrams
   occur, so "向量空间" finds "向量的空间" too. Results in the page's language come first. */
(function () {
  "use strict";
  var script = document.getElementById("search-script");
  var lang = script ? script.getAttribute("data-lang") : "en";
  var index = window.COURSEGEN_SEARCH_INDEX || [];
  var kindNames = {};
  ((script && script.getAttribute("data-kinds")) || "").split(";").forEach(function (pair) {
    var parts = pair.split("=");
    if (parts.length === 2) { kindNames[parts[0]] = parts[1]; }
  });
  var form = document.getElementById("search-form");
  var input = document.getElementById("search-q");
  var status = document.getElementById("search-status");
  var list = document.getElementById("search-results");
  if (!form || !input || !list) { return; }

  function normalise(text) {
    return (text || "").normalize("NFKC").toLowerCase();
  }
  var CJK = /[\u3400-\u9fff\uf900-\ufaff]/;
  var prepared = index.map(function (entry) {
    return { entry: entry, title: normalise(entry.title), body: normalise(entry.title + " " + entry.lesson + " " + entry.text) };
  });

  function bigrams(word) {
    var grams = [];
    for (var i = 0; i + 1 < word.length; i++) { grams.push(word.slice(i, i + 2)); }
    return grams;
  }
  function wordScore(word, item) {
    if (item.title.indexOf(word) >= 0) { return 5; }
    if (item.body.indexOf(word) >= 0) { return 2; }
    if (CJK.test(word) && word.length > 2) {
      var grams = bigrams(word);
      for (var i = 0; i < grams.length; i++) { if (item.body.indexOf(grams[i]) < 0) { return 0; } }
      return 1;
    }
    return 0;
  }
  function search(query) {
    var words = normalise(query).split(/\s+/).filter(function (w) { return w.length > 0; });
    if (!words.length) { return []; }
    var hits = [];
    prepared.forEach(function (item, position) {
      var score = 0;
      for (var i = 0; i < words.length; i++) {
        var s = wordScore(words[i], item);
        if (!s) { return; }
        score += s;
      }
      if (item.entry.lang === lang) { score += 100; }
      hits.push({ item: item, score: score, position: position });
    });
    hits.sort(function (a, b) { return b.score - a.score || a.position - b.position; });
    return hits.slice(0, 50);
  }
  function snippet(text, words) {
    var lower = normalise(text);
    var at = -1;
    for (var i = 0; i < words.length && at < 0; i++) { at = lower.indexOf(words[i]); }
    var start = Math.max(0, at - 60);
    var piece = text.slice(start, start + 180);
    return (start > 0 ? "…" : "") + piece + (start + 180 < text.length ? "…" : "");
  }
  function show(query) {
    while (list.firstChild) { list.removeChild(list.firstChild); }
    var hits = search(query);
    var words = normalise(query).split(/\s+/).filter(function (w) { return w.length > 0; });
    if (!words.length) { status.textContent = script.getAttribute("data-hint"); return; }
    status.textContent = hits.length ? hits.length + " " + script.getAttribute("data-results") : script.getAttribute("data-none");
    hits.forEach(function (hit) {
      var entry = hit.item.entry;
      var li = document.createElement("li");
      li.setAttribute("lang", entry.lang === "zh" ? "zh-CN" : "en");
      var link = document.createElement("a");
      link.href = "../" + entry.url;
      link.textContent = entry.title;
      li.appendChild(link);
      var meta = document.createElement("span");
      meta.className = "result-meta";
      meta.textContent = (kindNames[entry.kind] || entry.kind) + (entry.lesson ? " · " + entry.lesson : "");
      li.appendChild(meta);
      if (entry.text) {
        var p = document.createElement("p");
        p.textContent = snippet(entry.text, words);
        li.appendChild(p);
      }
      list.appendChild(li);
    });
  }
  function queryFromUrl() {
    var match = /[?&]q=([^&#]*)/.exec(window.location.search);
    if (!match) { return ""; }
    try { return decodeURIComponent(match[1].replace(/\+/g, " ")); } catch (e) { return ""; }
  }
  form.addEventListener("submit", function (event) {
    event.preventDefault();
    show(input.value);
    if (window.history && window.history.replaceState && window.location.protocol !== "file:") {
      window.history.replaceState(null, "", "?q=" + encodeURIComponent(input.value));
    }
  });
  input.addEventListener("input", function () { show(input.value); });
  var initial = queryFromUrl();
  if (initial) { input.value = initial; show(initial); }
})();
