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

  Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), setUp);
}());
