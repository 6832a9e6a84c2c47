// JSON Diff page: copy buttons, swap sides, Ctrl+Enter to compare, a size check before sending.
// The page works without this file.
(function () {
  "use strict";
  function reveal(root) {
    root.querySelectorAll(".js-only[hidden]").forEach(function (el) { el.hidden = false; });
  }
  function flash(button, text) {
    var old = button.textContent;
    button.textContent = text;
    setTimeout(function () { button.textContent = old; }, 1200);
  }
  document.addEventListener("click", function (event) {
    var button = event.target.closest("button");
    if (!button) return;
    if (button.hasAttribute("data-copy") || button.hasAttribute("data-copy-from")) {
      var source = button.getAttribute("data-copy-from");
      var text = source ? document.querySelector(source).textContent : button.getAttribute("data-copy");
      navigator.clipboard.writeText(text).then(function () { flash(button, "copied"); },
                                               function () { flash(button, "copy failed"); });
    } else if (button.hasAttribute("data-swap-sides")) {
      var left = document.getElementById("diff-left"), right = document.getElementById("diff-right");
      if (window.InspectorEditor) window.InspectorEditor.flush();
      var keep = left.value;
      left.value = right.value;
      right.value = keep;
      // The editors (static/editor.js) and the kept input (static/state.js) follow the textareas' input events.
      left.dispatchEvent(new Event("input", { bubbles: true }));
      right.dispatchEvent(new Event("input", { bubbles: true }));
      // The verdict on screen was for the other order: compare again (or clear it when nothing was compared).
      var result = document.getElementById("diff-result");
      if (result.querySelector("#diff-summary, [data-side], #diff-blockers")) {
        document.querySelector("#diff-form button.primary").click();
      } else {
        result.replaceChildren();
      }
    }
  });
  document.addEventListener("keydown", function (event) {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey) && event.target.closest("#diff-form")) {
      event.preventDefault();
      document.querySelector("#diff-form button.primary").click();
    }
  });
  function say(text) {
    var panel = document.createElement("section");
    panel.className = "panel error";
    panel.setAttribute("role", "alert");
    panel.id = "diff-too-large";
    var title = document.createElement("h2");
    title.textContent = "Too large";
    var body = document.createElement("p");
    body.textContent = text;
    panel.append(title, body);
    document.getElementById("diff-result").replaceChildren(panel);
  }

  // Refuse two sides over the server's request limit before sending them (the server would answer 413): the
  // bytes as sent, UTF-8, with the browser's CRLF for each line break of a textarea.
  function sizeOf(text) { return new Blob([text]).size + (text.match(/\n/g) || []).length; }
  function tooLarge() {
    var form = document.getElementById("diff-form");
    var limit = parseInt(form.getAttribute("data-max-bytes") || "0", 10);
    if (!limit) return false;
    if (window.InspectorEditor) window.InspectorEditor.flush();
    var left = sizeOf(document.getElementById("diff-left").value);
    var right = sizeOf(document.getElementById("diff-right").value);
    if (left + right <= limit) return false;
    var n = function (v) { return v.toLocaleString("en"); };
    say("The left side is " + n(left) + " bytes and the right side " + n(right) + " bytes: " + n(left + right) +
        " bytes together, over the limit of " + n(limit) + " bytes a request may carry, so nothing was sent.");
    return true;
  }
  document.addEventListener("htmx:confirm", function (event) {
    if (event.target.closest && event.target.closest("#diff-form") && tooLarge()) event.preventDefault();
  });
  document.addEventListener("submit", function (event) {
    if (event.target.id === "diff-form" && tooLarge()) event.preventDefault();
  });

  // htmx does not swap 4xx/5xx answers (e.g. 413 when a paste exceeds the size cap): say so instead of nothing.
  document.addEventListener("htmx:responseError", function (event) {
    var result = document.getElementById("diff-result");
    if (!result || !event.detail.xhr) return;
    var panel = document.createElement("section");
    panel.className = "panel error";
    panel.setAttribute("role", "alert");
    var status = event.detail.xhr.status;
    panel.textContent = "The server answered " + status + " " + event.detail.xhr.statusText +
      (status === 413 ? ": the pasted documents are larger than the size limit." : ".");
    result.replaceChildren(panel);
  });
  document.addEventListener("DOMContentLoaded", function () { reveal(document); });
  document.addEventListener("htmx:afterSwap", function (event) { reveal(event.target); });
})();
