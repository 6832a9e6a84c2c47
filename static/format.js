// JSON Format page: copy buttons, Ctrl+Enter, drag and drop (the size check before sending is static/app.js's).
// The page works without this file (plain POST, full page).
(function () {
  "use strict";


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

  document.addEventListener("DOMContentLoaded", setupDrop);
})();
