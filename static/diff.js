// JSON Diff page: copy buttons, swap sides, Ctrl+Enter to compare (the size check is static/app.js's).
// The page works without this file.
(function () {
  "use strict";
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
      // The editors (static/editor.js) and the kept input (static/state/form.js) follow the textareas' input events.
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
  // The session's tools (static/state/tools.js puts their bar above the schema field) are no use hidden in the closed
  // "Tool schema" section: open it when the bar is there, now or once the tools are learnt.
  function showToolsBar() {
    var section = document.querySelector("details.diff-schema");
    if (!section) return;
    var open = function () { if (section.querySelector(".tools-bar")) section.open = true; };
    open();
    new MutationObserver(open).observe(section, { childList: true, subtree: true });
  }
  document.addEventListener("DOMContentLoaded", showToolsBar);
})();
