// JSON Schema page: Ctrl/Cmd+Enter validates; a "line L, column C" link selects that place in its textarea.
// Everything works without this file (plain links and a plain POST form).
(function () {
  "use strict";

  // Offset of (line, column) in the textarea's value: both 1-based, column in characters (code points),
  // as the server counts them.
  function offsetOf(text, line, column) {
    var start = 0;
    for (var n = 1; n < line; n++) {
      var next = text.indexOf("\n", start);
      if (next < 0) return text.length;
      start = next + 1;
    }
    // Code points, not UTF-16 units: step over surrogate pairs as one character.
    var i = start;
    for (var c = 1; c < column && i < text.length; c++) {
      var code = text.charCodeAt(i);
      i += code >= 0xd800 && code <= 0xdbff ? 2 : 1;
    }
    return i;
  }

  document.addEventListener("click", function (event) {
    var link = event.target.closest && event.target.closest("a.pos[data-field]");
    if (!link) return;
    var area = document.getElementById(link.dataset.field);
    if (!area || area.tagName !== "TEXTAREA") return;
    event.preventDefault();
    var at = offsetOf(area.value, Number(link.dataset.line), Number(link.dataset.column));
    area.focus();
    area.setSelectionRange(at, Math.min(at + 1, area.value.length));
    // Scroll the selected line into view: roughly line index times the line height.
    var lineHeight = parseFloat(getComputedStyle(area).lineHeight) || 16;
    area.scrollTop = Math.max(0, (Number(link.dataset.line) - 3) * lineHeight);
    area.classList.add("flash");
    setTimeout(function () { area.classList.remove("flash"); }, 800);
  });

  document.addEventListener("keydown", function (event) {
    if (event.key !== "Enter" || !(event.ctrlKey || event.metaKey)) return;
    var form = event.target.closest && event.target.closest("form.schema-form");
    if (form) {
      event.preventDefault();
      form.requestSubmit();
    }
  });
})();
