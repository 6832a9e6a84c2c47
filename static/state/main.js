// Work is never lost, and nothing of it goes to the server (the entry of static/state/, loaded by
// templates/base.html as <script type="module">: deferred, so it runs after static/editor.js, whose editors it
// reads, and before static/app.js and the page's script, in the order base.html lists them):
// - each page's form (form[data-draft]) is kept in this browser as it is typed and restored on Back, reload and
//   return, with its result asked for again (form.js, store.js, entries.js, arrival.js, submit.js, notes.js);
// - "Share link" puts small inputs in the URL fragment, which browsers never send (share.js); what a link, an
//   example or a kept tool replaced is offered back (undo.js);
// - function tools met in any field are kept in this browser and offered on every field marked data-tools
//   (tools.js).
// These modules set no global; what they share with the other scripts is the DOM (the form's fields and their
// input/change events, data- attributes, among them data-arrived set here), the "inspector:note" event (notes.js)
// and, read only, window.InspectorEditor and window.htmx. The page works without them.

import { arrive } from "./arrival.js";
import { KeptForm } from "./form.js";
import { listenForShare } from "./share.js";
import { listenForTools, offerAll } from "./tools.js";

listenForTools();

function start() {
  offerAll();
  document.querySelectorAll("form[data-draft]").forEach(function (form) {
    const kept = new KeptForm(form);
    kept.listen();
    listenForShare(kept);
    // Settled: once the arrival is over (the page shows what it arrived with, its result asked for again), the
    // form gets data-arrived; what must wait for it (the browser tests) waits for that, not for a time.
    arrive(kept).finally(function () { form.setAttribute("data-arrived", ""); });
  });
}
if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
else start();
