// Stream page: Ctrl+Enter lints. The page works without this file.
(function () {
  "use strict";
  document.addEventListener("keydown", function (event) {
    if (event.key !== "Enter" || !(event.ctrlKey || event.metaKey)) return;
    if (!event.target.closest || !event.target.closest("#stream-form")) return;
    var button = document.getElementById("stream-lint");
    if (!button) return;
    event.preventDefault();
    button.click();
  });
})();
