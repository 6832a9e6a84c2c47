// JSON Format page: copy buttons, Ctrl+Enter, drag and drop, a client-side size check, 413 shown by htmx.
// The page works without this file (plain POST, full page).
(function () {
  "use strict";

  function reveal(root) {
    root.querySelectorAll(".js-only[hidden]").forEach(function (el) { el.hidden = false; });
  }

  function flash(button, text) {
    var old = button.getAttribute("data-label") || button.textContent;
    button.setAttribute("data-label", old);
    button.classList.add("copied");
    if (!button.classList.contains("ptr")) button.textContent = text;
    setTimeout(function () {
      button.classList.remove("copied");
      if (!button.classList.contains("ptr")) button.textContent = old;
    }, 1200);
  }

  function copy(text, button) {
    var done = function () { flash(button, "copied"); };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(done, function () { fallbackCopy(text); done(); });
    } else {
      fallbackCopy(text);
      done();
    }
  }

  function fallbackCopy(text) {
    var area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.style.position = "fixed";
    area.style.opacity = "0";
    document.body.appendChild(area);
    area.select();
    try { document.execCommand("copy"); } catch (e) { /* nothing else to try */ }
    document.body.removeChild(area);
  }

  function form() { return document.getElementById("format-form"); }

  function submitWith(action) {
    var button = document.querySelector('#format-form button[name="action"][value="' + action + '"][hx-post]');
    if (button) button.click();
  }

  function tooLarge(message) {
    var result = document.getElementById("format-result");
    result.innerHTML = "";
    var panel = document.createElement("section");
    panel.className = "panel error";
    panel.id = "format-error";
    panel.setAttribute("role", "alert");
    var title = document.createElement("h2");
    title.textContent = "Too large";
    var text = document.createElement("p");
    text.textContent = message;
    panel.appendChild(title);
    panel.appendChild(text);
    result.appendChild(panel);
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest("button[data-copy], button[data-copy-from]");
    if (!button) return;
    event.preventDefault();
    var source = button.getAttribute("data-copy-from");
    copy(source ? document.querySelector(source).textContent : button.getAttribute("data-copy"), button);
  });

  document.addEventListener("keydown", function (event) {
    if (event.key !== "Enter" || !(event.ctrlKey || event.metaKey) || !form()) return;
    event.preventDefault();
    submitWith(event.shiftKey ? "minify" : "pretty");
  });

  // Refuse a document over the server's limit before sending it (the server would answer 413 anyway).
  document.addEventListener("htmx:confirm", function (event) {
    var f = form();
    if (!f || !f.contains(event.target)) return;
    var limit = parseInt(f.getAttribute("data-max-bytes") || "0", 10);
    if (!limit) return;
    var file = document.getElementById("format-file").files[0];
    var size = file ? file.size : new Blob([document.getElementById("format-document").value]).size;
    if (size > limit) {
      event.preventDefault();
      tooLarge("The document is " + size.toLocaleString("en") + " bytes; the limit is " +
               limit.toLocaleString("en") + " bytes, so it was not sent.");
    }
  });

  // htmx does not swap 4xx answers by default; the 413 answer is a page with the limit named: show it.
  document.addEventListener("htmx:beforeSwap", function (event) {
    if (event.detail.xhr && event.detail.xhr.status === 413) {
      event.detail.shouldSwap = true;
      event.detail.isError = false;
    }
  });

  // After a file sent as it is (not UTF-8) the textarea holds its text (sent back out of band): clear the input.
  document.addEventListener("htmx:afterRequest", function (event) {
    var f = form();
    if (f && f.contains(event.target)) document.getElementById("format-file").value = "";
  });

  function setupDrop() {
    var zone = document.getElementById("format-dropzone");
    var input = document.getElementById("format-file");
    if (!zone || !input) return;
    ["dragenter", "dragover"].forEach(function (name) {
      zone.addEventListener(name, function (event) {
        if (!event.dataTransfer || Array.prototype.indexOf.call(event.dataTransfer.types, "Files") < 0) return;
        event.preventDefault();
        zone.classList.add("dragging");
      });
    });
    ["dragleave", "drop"].forEach(function (name) {
      zone.addEventListener(name, function () { zone.classList.remove("dragging"); });
    });
    zone.addEventListener("drop", function (event) {
      if (!event.dataTransfer || !event.dataTransfer.files.length) return;
      event.preventDefault();
      var files = new DataTransfer();
      files.items.add(event.dataTransfer.files[0]);
      input.files = files.files;
      input.dispatchEvent(new Event("change", { bubbles: true })); // read into the editor by static/app.js
    });
    // The file's text is in the editor now (or, not UTF-8, it is sent as it is): format it.
    input.addEventListener("inspector:file", function () { submitWith("pretty"); });
  }

  document.addEventListener("DOMContentLoaded", function () { reveal(document); setupDrop(); });
  document.addEventListener("htmx:afterSwap", function (event) { reveal(event.target); });
})();
