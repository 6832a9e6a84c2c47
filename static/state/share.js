// "Share link": a form's fields, deflate-raw compressed and base64url encoded, after "#input=" in the page's URL.
// Browsers never send the #fragment to a server. A link opened (on arrival, static/state/arrival.js, or followed
// on the page already open: hashchange) shows its input as an example does, the text it replaced offered back
// (Undo), and the fragment is dropped once read, so a reload shows the kept text, never the link's again.

import { apply, snapshot } from "./fields.js";
import { firstSubmitter, replay, resultOf } from "./submit.js";

const SHARE_MAX = 8000; // characters in the fragment: a link that still fits in a chat message or an issue

function toBase64url(bytes) {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}
function fromBase64url(text) {
  const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
function encodeShare(values) {
  const stream = new Blob([JSON.stringify(values)]).stream().pipeThrough(new CompressionStream("deflate-raw"));
  return new Response(stream).arrayBuffer().then(function (buffer) { return toBase64url(new Uint8Array(buffer)); });
}
function decodeShare(text) {
  const stream = new Blob([fromBase64url(text)]).stream().pipeThrough(new DecompressionStream("deflate-raw"));
  return new Response(stream).text().then(JSON.parse);
}

// A Promise of the fields the URL's fragment holds, or null when it holds none. Throws (or the Promise rejects)
// when the fragment cannot be read.
export function sharedInput() {
  const match = /^#input=([A-Za-z0-9_-]+)$/.exec(location.hash);
  return match ? decodeShare(match[1]) : null;
}

// Shows a link's ``values`` in ``kept``'s form and offers back the work it replaced: ``before`` ({fields, saved,
// submitted, previous}: a kept draft, or the page as it was). Answers {resubmit: the submission that shows the
// link's input}.
export function fromLink(kept, values, before) {
  history.replaceState(Object.assign({}, history.state, { inspectorEntry: kept.entry }), "",
                       location.pathname + location.search);
  apply(kept.form, values);
  if (before && before.fields) kept.undo.offer(before, true);
  if (before && before.previous) kept.undo.offer(before.previous); // the link changed nothing: the older offer
  kept.say("Filled in from the link.");
  return { resubmit: firstSubmitter(kept.form) };
}

// The "Share link" button of ``kept``'s draft bar, and a share link followed on its own page (only the fragment
// changes: no new page, no arrival).
export function listenForShare(kept) {
  const form = kept.form, url = kept.url;
  kept.share.addEventListener("click", function () {
    encodeShare(snapshot(form)).then(function (data) {
      if (data.length > SHARE_MAX) {
        url.hidden = true;
        kept.say("Too large for a link: " + data.length.toLocaleString("en") + " characters compressed; a link " +
                 "holds up to " + SHARE_MAX.toLocaleString("en") + ". Download or copy the text instead.");
        return;
      }
      url.value = location.origin + location.pathname + "#input=" + data;
      url.hidden = false;
      url.select();
      const copied = navigator.clipboard && window.isSecureContext
        ? navigator.clipboard.writeText(url.value) : Promise.reject(new Error("no clipboard"));
      const where = "it holds the input in its #fragment, never sent to a server.";
      copied.then(function () { kept.say("Link copied: " + where); },
                  function () { kept.say("Copy the link: " + where); });
    });
  });
  window.addEventListener("hashchange", function () {
    let reading = null;
    try { reading = sharedInput(); } catch (e) { reading = Promise.reject(e); }
    if (!reading) return;
    reading.then(function (values) {
      const draft = kept.draft;
      const before = { fields: snapshot(form), saved: Date.now(), submitted: draft.submitted,
                       previous: draft.previous };
      const shown = fromLink(kept, values, before);
      const result = resultOf(form);
      if (result) result.replaceChildren(); // the replaced text's result
      draft.submitted = null;
      kept.save();
      replay(form, shown.resubmit);
    }, function () { kept.say("The link's input could not be read."); });
  });
}
