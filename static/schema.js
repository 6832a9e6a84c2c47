// JSON Schema page: Ctrl/Cmd+Enter validates ("line L, column C" links are static/app.js's, on every page).
// Everything works without this file (plain links and a plain POST form).
(function () {
  "use strict";

  document.addEventListener("keydown", function (event) {
    if (event.key !== "Enter" || !(event.ctrlKey || event.metaKey)) return;
    var form = event.target.closest && event.target.closest("form.schema-form");
    if (form) {
      event.preventDefault();
      form.requestSubmit();
    }
  });
})();
