/* Sortable tables for the class report: a classic script (no modules, no fetch), so the
   report works when opened from file://. A header cell becomes a button; cells with a
   data-value sort by it as a number (an empty value sorts last), others by their text. */
(function () {
  "use strict";

  function key(cell, numeric) {
    if (!cell) { return numeric ? null : ""; }
    if (numeric) {
      var raw = cell.getAttribute("data-value");
      if (raw === null || raw === "") { return null; }
      var value = parseFloat(raw);
      return isNaN(value) ? null : value;
    }
    return cell.textContent.trim().toLowerCase();
  }

  function compare(a, b, numeric, direction) {
    if (numeric) {
      if (a === null && b === null) { return 0; }
      if (a === null) { return 1; }
      if (b === null) { return -1; }
      return direction * (a - b);
    }
    return direction * a.localeCompare(b);
  }

  function sortBy(table, column, header) {
    var numeric = header.getAttribute("data-type") === "number";
    var direction = header.getAttribute("aria-sort") === "ascending" ? -1 : 1;
    var headers = table.tHead.rows[0].cells;
    for (var h = 0; h < headers.length; h++) { headers[h].removeAttribute("aria-sort"); }
    header.setAttribute("aria-sort", direction === 1 ? "ascending" : "descending");
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows).map(function (row, index) {
      return { row: row, index: index, key: key(row.cells[column], numeric) };
    });
    rows.sort(function (a, b) {
      return compare(a.key, b.key, numeric, direction) || a.index - b.index;
    });
    var fragment = document.createDocumentFragment();
    rows.forEach(function (item) { fragment.appendChild(item.row); });
    body.appendChild(fragment);
  }

  function setUp(table) {
    if (!table.tHead || !table.tBodies.length) { return; }
    var headers = table.tHead.rows[0].cells;
    Array.prototype.forEach.call(headers, function (header, column) {
      var button = document.createElement("button");
      button.type = "button";
      while (header.firstChild) { button.appendChild(header.firstChild); }
      header.appendChild(button);
      button.addEventListener("click", function () { sortBy(table, column, header); });
    });
  }

  /* The student drill-down (student.html#<id>): drawn from window.COURSEGEN_REPORT (students.js)
     with textContent only, so nothing a student named can become markup. */
  function element(tag, text, className) {
    var node = document.createElement(tag);
    if (text !== undefined && text !== null) { node.textContent = String(text); }
    if (className) { node.className = className; }
    return node;
  }

  function code(text) { return element("code", text); }

  function points(value) { return String(Math.round(value * 10000) / 10000); }

  function table(headers, numeric) {
    var node = element("table", null, "sortable");
    var head = node.createTHead().insertRow();
    headers.forEach(function (label, index) {
      var th = element("th", label);
      th.scope = "col";
      if (numeric.indexOf(index) >= 0) { th.setAttribute("data-type", "number"); }
      head.appendChild(th);
    });
    node.appendChild(document.createElement("tbody"));
    return node;
  }

  function cell(row, content, value) {
    var td = row.insertCell();
    if (content instanceof Node) { td.appendChild(content); } else { td.textContent = content; }
    if (value !== undefined) { td.setAttribute("data-value", String(value)); }
    return td;
  }

  function drawStudent(root, ui) {
    var data = window.COURSEGEN_REPORT;
    var id = decodeURIComponent(window.location.hash.replace(/^#/, ""));
    var student = data && Object.prototype.hasOwnProperty.call(data.students, id) ? data.students[id] : null;
    while (root.firstChild) { root.removeChild(root.firstChild); }
    var switcher = document.querySelector(".lang-switch");
    if (switcher) { switcher.href = switcher.href.split("#")[0] + "#" + encodeURIComponent(id); }
    if (!student) {
      root.appendChild(element("h1", ui.unknown_student));
      return;
    }
    document.title = student.name + " · " + document.title.split(" · ").slice(1).join(" · ");
    root.appendChild(element("h1", student.name));
    root.appendChild(element("h2", ui.latest));
    var matched = [];
    student.latest.forEach(function (run) {
      var section = element("section", null, "run");
      var heading = element("h3");
      heading.appendChild(code(run[0]));
      heading.appendChild(element("span", " " + points(run[1]) + " / " + points(run[2]) + " · " + run[3], "points"));
      section.appendChild(heading);
      // a problem is a sentence, or the same problem in every language of the report: this page's
      run[4].forEach(function (problem) {
        section.appendChild(element("p", typeof problem === "string" ? problem : problem[pageLang], "problem"));
      });
      var checks = table([ui.exercise, ui.check, ui.status, ui.points, ui.matched_mistakes, ui.problem], [3]);
      run[5].forEach(function (check) {
        var row = checks.tBodies[0].insertRow();
        row.className = check[4] ? "passed" : "failed";
        cell(row, code(data.exercises[check[1]]));
        var name = cell(row, code(data.checks[check[0]]));
        if (check[5]) { name.appendChild(element("span", " (" + ui.hidden + ")", "points")); }
        cell(row, check[4] ? ui.status_passed : ui.status_failed);
        cell(row, points(check[2]) + " / " + points(check[3]), check[2]);
        var mistakes = cell(row, "");
        check[6].forEach(function (mistake) {
          var link = element("a");
          link.href = "#" + encodeURIComponent(id);
          link.setAttribute("data-hint", mistake);
          link.appendChild(code(mistake));
          link.addEventListener("click", function (event) {
            event.preventDefault();
            var target = document.getElementById("hint-" + mistake);
            if (target) { target.scrollIntoView(); }
          });
          mistakes.appendChild(link);
          mistakes.appendChild(document.createTextNode(" "));
          if (matched.indexOf(mistake) < 0) { matched.push(mistake); }
        });
        cell(row, check[7]);
      });
      section.appendChild(checks);
      root.appendChild(section);
    });
    root.appendChild(element("h2", ui.matched_mistakes));
    if (matched.length) {
      var list = element("dl", null, "hints");
      matched.forEach(function (mistake) {
        var term = element("dt");
        term.id = "hint-" + mistake;
        var link = element("a");
        link.href = "index.html#mistake-" + mistake;
        link.appendChild(code(mistake));
        term.appendChild(link);
        list.appendChild(term);
        var hint = data.hints[mistake];
        list.appendChild(element("dd", hint ? hint[document.documentElement.lang === "en" ? "en" : "zh"] : ""));
      });
      root.appendChild(list);
    } else {
      root.appendChild(element("p", ui.none));
    }
    root.appendChild(element("h2", ui.history));
    var history = table([ui.graded_at, ui.submission, ui.score, ui.sha], [2]);
    student.history.forEach(function (run) {
      var row = history.tBodies[0].insertRow();
      cell(row, run[0]);
      cell(row, code(run[1]));
      cell(row, points(run[2]) + " / " + points(run[3]), run[2]);
      cell(row, code(run[4]));
    });
    root.appendChild(history);
    Array.prototype.forEach.call(root.querySelectorAll("table.sortable"), setUp);
  }

  var studentRoot = document.getElementById("student-report");
  if (studentRoot) {
    var ui = JSON.parse(document.getElementById(studentRoot.getAttribute("data-ui-json")).textContent);
    var pageLang = (document.documentElement.lang || "en").indexOf("zh") === 0 ? "zh" : "en";
    drawStudent(studentRoot, ui);
    window.addEventListener("hashchange", function () { drawStudent(studentRoot, ui); });
  } else {
    Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), setUp);
  }
}());
