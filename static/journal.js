// Journal page: Ctrl+Enter checks, the upload progress bar. The page works without this file.
(function () {
  "use strict";
  document.addEventListener("keydown", function (event) {
    if (event.key !== "Enter" || !(event.ctrlKey || event.metaKey)) return;
    var button = document.getElementById("journal-check");
    if (!button) return;
    event.preventDefault();
    button.click();
  });
  // A 30 MB journal takes a while to send: show how much has gone (htmx's XHR progress events).
  document.addEventListener("htmx:xhr:progress", function (event) {
    var bar = document.getElementById("journal-progress");
    if (!bar || !event.detail.lengthComputable) return;
    bar.hidden = false;
    bar.value = Math.round(100 * event.detail.loaded / event.detail.total);
  });
  document.addEventListener("htmx:afterRequest", function () {
    var bar = document.getElementById("journal-progress");
    if (bar) bar.hidden = true;
  });
})();
