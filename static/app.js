// Small progressive enhancements shared by every page; every form works without this file.
// Positions: any element with data-field (a textarea's id), data-line and data-column (1-based, columns in
// characters) is a marker in that field's editor (static/editor.js) and, clicked, selects that spot.
(function () {
  "use strict";

  function editorFor(id) { return window.InspectorEditor ? window.InspectorEditor.get(id) : null; }

  function messageOf(el) {
    if (el.dataset.message) return el.dataset.message;
    var around = el.closest("li, dd, p, article, section") || el;
    return around.textContent.replace(/\s+/g, " ").trim().slice(0, 400);
  }

  function severityOf(el) {
    if (el.dataset.severity) return el.dataset.severity;
    return el.closest(".warnings, .warning, [data-severity=warning]") ? "warning" : "error";
  }

  // Every position shown on the page becomes a marker in its field; fields without one are cleared.
  function showMarkers() {
    var byField = {};
    document.querySelectorAll("[data-field][data-line][data-column]").forEach(function (el) {
      if (el.hasAttribute("data-no-marker")) return; // a jump link only (an item's line in a journal)
      (byField[el.dataset.field] = byField[el.dataset.field] || []).push({
        line: Number(el.dataset.line), column: Number(el.dataset.column),
        severity: severityOf(el), message: messageOf(el),
      });
    });
    document.querySelectorAll("textarea[data-editor]").forEach(function (area) {
      var handle = editorFor(area.id);
      if (handle) handle.setMarkers(byField[area.id] || []);
    });
  }

  // Offset (UTF-16 units) of 1-based (line, column in code points) in a textarea's text, clamped to it.
  function offsetOf(text, line, column) {
    var start = 0;
    for (var n = 1; n < line; n++) {
      var next = text.indexOf("\n", start);
      if (next < 0) return text.length;
      start = next + 1;
    }
    var i = start;
    for (var c = 1; c < column && i < text.length && text.charCodeAt(i) !== 10; c++) {
      var code = text.charCodeAt(i);
      i += code >= 0xd800 && code <= 0xdbff ? 2 : 1; // a surrogate pair is one character
    }
    return i;
  }

  // Plain-textarea selection when the editor is not there (no editor.js, or a text above its limit).
  function selectInTextarea(area, line, column) {
    var at = offsetOf(area.value, line, column);
    area.focus();
    area.setSelectionRange(at, Math.min(at + 1, area.value.length));
    var lineHeight = parseFloat(getComputedStyle(area).lineHeight) || 16;
    area.scrollTop = Math.max(0, (line - 3) * lineHeight);
  }

  document.addEventListener("click", function (event) {
    var link = event.target.closest && event.target.closest("[data-field][data-line][data-column]");
    if (!link) return;
    var id = link.dataset.field, line = Number(link.dataset.line), column = Number(link.dataset.column);
    var handle = editorFor(id), area = document.getElementById(id);
    if (!handle && !(area && area.tagName === "TEXTAREA")) return;
    event.preventDefault();
    if (handle && handle.editing) handle.select(line, column);
    else selectInTextarea(area, line, column);
  });

  // "Skip to the input": the page's first field (its editor), past the header and the examples.
  document.addEventListener("click", function (event) {
    if (!event.target.closest || !event.target.closest("a.skip-link")) return;
    var area = document.querySelector("main form[data-draft] textarea[name], main textarea[name]");
    var handle = area && editorFor(area.id);
    if (!area) return;
    event.preventDefault();
    if (handle && handle.editing) handle.focus();
    else area.focus();
  });

  document.addEventListener("DOMContentLoaded", showMarkers);
  document.addEventListener("htmx:afterSettle", showMarkers);
})();
