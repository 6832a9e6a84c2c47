// Small progressive enhancements shared by every page; every form works without this file.
// Files chosen in a form are read here into their field (data-read-into; see readInto below).
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

  // Files: a file input marked data-read-into="<textarea id>" reads the chosen (or dropped) file here, into that
  // field's editor, and is emptied: the request then carries the text as a paste does and its answer need not
  // send the file back (a 15 MB file made a 27 MB answer). A file over the form's data-max-bytes is refused
  // before it is read; one that is not UTF-8 stays chosen and goes as it is (the server names the byte). Then
  // the input gets "inspector:file" (detail.read: whether its text is in the field) for the page to act on.
  var FATAL_UTF8 = { fatal: true }; // a BOM at the start is dropped, as the server drops it from an upload
  function fileNote(input) {
    var id = input.id + "-note", note = document.getElementById(id);
    if (!note) {
      note = document.createElement("span");
      note.id = id;
      note.className = "muted file-note";
      note.setAttribute("role", "status");
      (input.closest("label") || input).after(note);
    }
    return note;
  }
  function bytes(n) { return n.toLocaleString("en") + " byte" + (n === 1 ? "" : "s"); }
  function refuse(input, file, limit) {
    var form = input.form, target = form && document.querySelector(form.getAttribute("hx-target") || "#none");
    var message = "The file " + file.name + " is " + bytes(file.size) + "; the limit is " + bytes(limit) +
      ", so it was not read or sent.";
    if (target) {
      var panel = document.createElement("section");
      panel.className = "panel error";
      panel.id = target.id.replace(/-result$/, "") + "-error";
      panel.setAttribute("role", "alert");
      var title = document.createElement("h2"), text = document.createElement("p");
      title.textContent = "Too large";
      text.textContent = message;
      panel.append(title, text);
      target.replaceChildren(panel);
    }
    fileNote(input).textContent = message;
  }
  function readInto(input) {
    var file = input.files && input.files[0], area = document.getElementById(input.dataset.readInto);
    if (!file || !area) return;
    var limit = parseInt((input.form && input.form.getAttribute("data-max-bytes")) || "0", 10);
    if (limit && file.size > limit) {
      input.value = "";
      refuse(input, file, limit);
      return;
    }
    var note = fileNote(input);
    note.textContent = "Reading " + file.name + "…";
    file.arrayBuffer().then(function (buffer) {
      var text;
      try { text = new TextDecoder("utf-8", FATAL_UTF8).decode(buffer); } catch (e) { text = null; }
      if (input.files[0] !== file) return; // another file was chosen meanwhile
      if (text === null) {
        note.textContent = file.name + " is not UTF-8 text: it is sent as it is.";
        input.dispatchEvent(new CustomEvent("inspector:file", { bubbles: true, detail: { read: false } }));
        return;
      }
      // A text box holds no CR: its CR LF (and lone CR) line breaks become LF, as the textarea would make them.
      var breaks = (text.match(/\r\n?/g) || []).length;
      if (breaks) text = text.replace(/\r\n?/g, "\n");
      var handle = editorFor(area.id);
      if (handle) handle.setValue(text); // its listeners (the kept draft, static/state.js) hear of it
      else { area.value = text; area.dispatchEvent(new Event("input", { bubbles: true })); }
      input.value = "";
      var said = [];
      if (new Uint8Array(buffer, 0, Math.min(3, buffer.byteLength)).join() === "239,187,191") {
        said.push("its byte order mark dropped");
      }
      if (breaks) said.push(breaks.toLocaleString("en") + " CR line break" + (breaks === 1 ? "" : "s") + " read as LF");
      note.textContent = "Read " + file.name + " (" + bytes(file.size) + ") into the text box" +
        (said.length ? ": " + said.join(", ") : "") + ".";
      input.dispatchEvent(new CustomEvent("inspector:file", { bubbles: true, detail: { read: true } }));
    }, function () {
      note.textContent = file.name + " could not be read here: it is sent as it is.";
      input.dispatchEvent(new CustomEvent("inspector:file", { bubbles: true, detail: { read: false } }));
    });
  }
  document.addEventListener("change", function (event) {
    var input = event.target;
    if (input && input.matches && input.matches("input[type=file][data-read-into]")) readInto(input);
  });

  document.addEventListener("DOMContentLoaded", showMarkers);
  document.addEventListener("htmx:afterSettle", showMarkers);
})();
