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

  // ---- Request size: refuse before sending what the server would answer 413 (MAX_CONTENT_LENGTH, rendered
  // once into <body data-max-bytes> by webapp/web/limits.py), counting what the request really carries: every
  // field, UTF-8, line breaks as CRLF, and the multipart (or urlencoded) framing around each field.

  function limitBytes() { return parseInt(document.body.getAttribute("data-max-bytes") || "0", 10) || 0; }

  function count(text, part) {
    var n = 0;
    for (var at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + part.length)) n++;
    return n;
  }

  // Bytes of a text as a form sends it: UTF-8, each lone CR or LF turned into CRLF (HTML's form encoding).
  function textBytes(text) {
    var size = new Blob([text]).size;
    var lf = count(text, "\n"), cr = text.indexOf("\r") < 0 ? 0 : count(text, "\r");
    return size + lf + cr - 2 * (cr ? count(text, "\r\n") : 0);
  }

  // The browser's multipart boundary length (Chromium's is 38 characters), read off an encoder of the same
  // engine; 70 (RFC 2046's longest) if it cannot be read, so the count is never below what is sent.
  var boundaryLength = null;
  function boundaryBytes() {
    if (boundaryLength === null) {
      try {
        var type = new Response(new FormData()).headers.get("Content-Type") || "";
        var match = /boundary=(.+)$/.exec(type);
        boundaryLength = match ? match[1].length : 70;
      } catch (e) { boundaryLength = 70; }
    }
    return boundaryLength;
  }

  function escaped(text) {
    try { return encodeURIComponent(text).length; } catch (e) { return 9 * text.length; }  // a lone surrogate
  }

  function nameBytes(name) { return textBytes(name.replace(/"/g, "%22")); }

  // [[name, bytes of its value], ...] and the total body size of `entries` (FormData entries) as sent.
  function measure(entries, multipart) {
    var fields = [], total = 0, boundary = boundaryBytes();
    entries.forEach(function (value, name) {
      var isFile = typeof File !== "undefined" && value instanceof File;
      var bytes = isFile ? value.size : textBytes(String(value));
      fields.push([isFile && value.name ? name + " (" + value.name + ")" : name, bytes]);
      if (multipart) {
        // --B CRLF Content-Disposition: form-data; name="n"[; filename="f" CRLF Content-Type: t] CRLF CRLF v CRLF
        total += 2 + boundary + 2 + 38 + nameBytes(name) + 1 + 4 + bytes + 2;
        if (isFile) total += 13 + nameBytes(value.name) + 16 + (value.type || "application/octet-stream").length;
      } else {  // htmx's own urlencoding: name=value joined by &, percent-encoded as encodeURIComponent does
        total += escaped(name) + 1 + (isFile ? escaped(value.name) : escaped(String(value))) + 1;
      }
    });
    total += multipart ? 2 + boundary + 4 : -1;
    return { fields: fields, total: Math.max(total, 0) };
  }

  function plural(n, word) { return n.toLocaleString("en") + " " + word + (n === 1 ? "" : "s"); }

  function tooLargeMessage(size, limit) {
    var fields = size.fields.filter(function (f) { return f[1] > 0; })
      .sort(function (a, b) { return b[1] - a[1]; });
    var parts = fields.slice(0, 3).map(function (f) { return f[0] + " " + plural(f[1], "byte"); });
    var listed = fields.slice(0, 3).reduce(function (sum, f) { return sum + f[1]; }, 0);
    if (size.total > listed) parts.push("the rest and the form's encoding " + plural(size.total - listed, "byte"));
    return "This request would carry " + plural(size.total, "byte") + " (" + parts.join(", ") + "), over the " +
      "limit of " + plural(limit, "byte") + " a request may carry, so nothing was sent. Send less, or start " +
      "the app with a larger MAX_CONTENT_LENGTH (FLASK_MAX_CONTENT_LENGTH).";
  }

  // The panel goes where the answer would have gone; its id is the page's (diff-form → diff-too-large).
  function showTooLarge(target, form, message) {
    var panel = document.createElement("section");
    panel.className = "panel error too-large";
    panel.setAttribute("role", "alert");
    panel.id = (form && form.id ? form.id.replace(/-form$/, "") : "request") + "-too-large";
    var title = document.createElement("h2");
    title.textContent = "Too large";
    var text = document.createElement("p");
    text.textContent = message;
    panel.append(title, text);
    if (target) target.replaceChildren(panel);
  }

  function isMultipart(elt, form) {
    var holder = elt.closest && elt.closest("[hx-encoding]");
    var encoding = holder ? holder.getAttribute("hx-encoding") : form && form.getAttribute("enctype");
    return (encoding || "").toLowerCase() === "multipart/form-data";
  }

  // htmx requests: what htmx built is what goes (its FormData, after hx-vals and the submitting button).
  document.addEventListener("htmx:configRequest", function (event) {
    var limit = limitBytes(), detail = event.detail;
    if (!limit || !detail.formData || detail.verb === "get") return;
    var form = detail.elt.closest ? detail.elt.closest("form") || detail.elt.form : null;
    var size = measure(detail.formData, isMultipart(detail.elt, form));
    if (size.total <= limit) return;
    event.preventDefault();
    showTooLarge(detail.target, form, tooLargeMessage(size, limit));
  });

  // Plain submits that htmx does not take (a Download button): the form data as the browser builds it.
  document.addEventListener("submit", function (event) {
    var form = event.target, limit = limitBytes();
    if (event.defaultPrevented || !limit || form.method.toLowerCase() !== "post") return;
    var size = measure(new FormData(form, event.submitter || undefined), form.enctype === "multipart/form-data");
    if (size.total <= limit) return;
    event.preventDefault();
    var holder = form.matches("[hx-target]") ? form : form.querySelector("[hx-target]");
    var target = holder && document.querySelector(holder.getAttribute("hx-target"));
    showTooLarge(target, form, tooLargeMessage(size, limit));
  });

  // Other failed answers (a 5xx; 413 is swapped, see base.html's htmx-config) are said in the result area
  // instead of leaving it unchanged.
  document.addEventListener("htmx:responseError", function (event) {
    var xhr = event.detail.xhr, target = event.detail.target;
    if (!xhr || !target) return;
    var panel = document.createElement("section");
    panel.className = "panel error";
    panel.setAttribute("role", "alert");
    panel.textContent = "The server answered " + xhr.status + " " + xhr.statusText + "; nothing was changed here.";
    target.replaceChildren(panel);
  });

  // Files: a file input marked data-read-into="<textarea id>" reads the chosen (or dropped) file here, into that
  // field's editor, and is emptied: the request then carries the text as a paste does and its answer need not
  // send the file back (a 15 MB file made a 27 MB answer). A file over the limit (body data-max-bytes) is refused
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
    var limit = limitBytes();
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
      if (handle) handle.setValue(text); // its listeners (the kept draft, static/state/form.js) hear of it
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

  // A text box's note that its text is not the uploaded file (not UTF-8: templates/_macros.html not_the_file) stays
  // while the text is the one it came with (the server's: the textarea's defaultValue; a restored draft's: the text
  // when static/state/notes.js showed it again, "inspector:note"), and goes, with its marker, once the text is edited
  // or replaced. The emptied note stays in place for the next upload's answer.
  var watched = new WeakSet(), about = new WeakMap(); // editors listened to; note -> the text it is about
  function valueOf(area) { var handle = editorFor(area.id); return handle ? handle.getValue() : area.value; }
  function checkNotTheFile() {
    var gone = false;
    document.querySelectorAll("[data-replaced-for]:not([hidden])").forEach(function (note) {
      var area = document.getElementById(note.dataset.replacedFor), handle = area && editorFor(area.id);
      if (handle && !watched.has(handle)) { watched.add(handle); handle.onChange(checkNotTheFile); }
      if (area && valueOf(area) === (about.has(note) ? about.get(note) : area.defaultValue)) return;
      about.delete(note);
      note.hidden = true;
      note.replaceChildren();
      gone = true;
    });
    if (gone) showMarkers();
  }
  document.addEventListener("input", function (event) {
    if (event.target && event.target.tagName === "TEXTAREA") checkNotTheFile();
  });
  document.addEventListener("htmx:load", checkNotTheFile);
  document.addEventListener("inspector:note", function (event) {
    var note = event.target, area = document.getElementById(note.dataset.replacedFor);
    if (area) about.set(note, valueOf(area));
    checkNotTheFile();
    showMarkers();
  });

  // The answer is seen: after a press of the page's button (Format, Validate, Compare, Check, Ctrl+Enter), the
  // verdict that htmx swapped into the result area is scrolled to the top of the window and focused. The area
  // names it (data-verdict: selectors, the first one found wins), so an error panel comes before the verdict.
  // A select's change, a pager inside the result, or a restored draft's replay (no triggering event) leave the
  // focus and the scroll where the user has them.
  function verdictIn(area) {
    var found = null;
    area.getAttribute("data-verdict").split(",").some(function (selector) {
      found = area.querySelector(selector.trim());
      return Boolean(found);
    });
    return found;
  }
  document.addEventListener("htmx:afterSwap", function (event) {
    var area = event.detail.target, config = event.detail.requestConfig;
    var trigger = config && config.triggeringEvent;
    if (!area || !area.matches || !area.matches("[data-verdict]") || !trigger) return;
    if (trigger.type !== "click" && trigger.type !== "submit") return;
    if (config.elt && area.contains(config.elt)) return;
    var verdict = verdictIn(area);
    if (!verdict) return;
    if (!verdict.hasAttribute("tabindex")) verdict.setAttribute("tabindex", "-1");
    verdict.focus({ preventScroll: true });
    verdict.scrollIntoView({ block: "start" });
  });

  // What needs this script (Ctrl+Enter, copy buttons, the kept input) is written hidden, class js-only, and shown
  // here: without JavaScript no text promises it.
  function reveal(root) {
    root.querySelectorAll(".js-only[hidden]").forEach(function (el) { el.hidden = false; });
  }
  document.addEventListener("DOMContentLoaded", function () { reveal(document); });
  document.addEventListener("htmx:afterSwap", function (event) { reveal(event.target); });
  document.addEventListener("DOMContentLoaded", showMarkers);
  document.addEventListener("DOMContentLoaded", checkNotTheFile);
  document.addEventListener("htmx:afterSettle", showMarkers);
})();
