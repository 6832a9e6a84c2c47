// A form's arrival: what the page shows when it opens. A share link wins, then a kept draft (this history
// entry's own first; see baseOf in static/state/fields.js for when a draft may replace what the server sent),
// else what the server sent; the work that was replaced is offered back (Undo). Then the tools of what the page
// shows are learnt, an empty tools field is filled from them, the result on screen is asked for again when it
// is stale (a restored draft's, a filled-in tool's), and the focus goes to what to do next.

import { apply, editorOf, read, textsOf } from "./fields.js";
import { showNotes } from "./notes.js";
import { fromLink, sharedInput } from "./share.js";
import { drafts, newer, quietly } from "./store.js";
import { rescue } from "./entries.js";
import { firstSubmitter, replay } from "./submit.js";
import { fillTool, lookIn, wantsTool } from "./tools.js";

// ``kept``: the form's KeptForm (static/state/form.js). Answers a Promise, settled once the page shows what it
// arrived with and htmx has answered the request for its result again (when one went through htmx.ajax).
export function arrive(kept) {
  const form = kept.form, key = kept.key, entry = kept.entry, base = kept.base;
  const say = function (text) { kept.say(text); };
  // The tools of what the server sent are asked for at once (not after the kept draft is read): a page left
  // quickly (an example glanced at) still teaches them.
  if (!base.empty) lookIn(textsOf(form));
  let backup = null;
  try {
    backup = JSON.parse(localStorage.getItem(key) || "null");
    localStorage.removeItem(key);
  } catch (e) { backup = null; }
  let shared = null;
  try { shared = sharedInput(); } catch (e) { say("The link's input could not be read."); }
  const arrival = shared
    ? Promise.all([shared, quietly(drafts.get(key)), quietly(drafts.get(kept.entryKey)), rescue(backup, entry)])
      .then(function (found) {
        // What the page held before the link: this entry's own text (a reload), else the page's latest work.
        const own = found[2], mine = backup && backup.entry === entry ? backup : null;
        return fromLink(kept, found[0], own ? newer(own, mine) : newer(found[1], backup));
      }, function () { say("The link's input could not be read."); return null; })
    : Promise.all([drafts.get(key), drafts.get(kept.entryKey), rescue(backup, entry)]).then(function (found) {
      const stored = found[0], own = found[1];
      // This history entry's own draft first (Back, reload). A page the server filled (an example, a carried
      // item) shows what it was sent and offers the page's latest work back (Undo): on a new entry, and on one
      // come back to that was left before its first save (the latest draft is another entry's work, perhaps on
      // the same URL). A page that arrived empty starts from the page's latest work.
      const mine = backup && backup.entry === entry ? backup : null, latest = newer(stored, backup);
      const restored = own ? newer(own, mine) : base.empty ? latest : kept.returning ? mine : null;
      const offered = restored || (base.empty ? null : latest);
      if (offered && !offered.fields && stored) drafts.remove(key).catch(function () { /* nothing kept */ });
      const restoring = restored && restored.fields && (base.empty || restored.base === base.hash);
      if (offered && offered.fields && !restoring) kept.undo.offer(offered);
      if (!restoring) {
        // A page carried from the step before may keep the page's latest work in the fields the carry left
        // empty (see keepEmpty, after the kept tools had their turn).
        return !base.empty && latest && latest.fields ? { carried: latest.fields } : null;
      }
      const changed = apply(form, restored.fields);
      showNotes(form, restored.notes);
      if (restored.previous) kept.undo.offer(restored.previous); // still on offer: this entry's text replaced it
      if (!changed) return null;
      kept.sayOfInput("Your input is back, kept in this browser since " +
        new Date(restored.saved).toLocaleTimeString() + ".");
      kept.draft.submitted = restored.submitted;
      return { resubmit: restored.submitted };
    }).catch(function () { return null; });
  return arrival.then(function (arrived) {
    const carried = arrived && arrived.carried, restored = carried ? null : arrived;
    // What the page shows is the work now, kept even if nothing is typed (a carried item, an example).
    if (restored || !base.empty) kept.save();
    // The tools of what the page shows are learnt; an empty schema field is filled in from them before a
    // restored result is asked for again (only then is the answer waited for).
    const filling = fillTool(form, say);
    return (wantsTool(form) ? filling : Promise.resolve(false)).then(function (tool) {
      // A carried page keeps the schema already there when no kept tool of the call's name filled it in: the
      // carried instance meets it, and its result is asked for again.
      const keptOver = carried && !tool ? keepEmpty(form, carried) : [];
      if (keptOver.length) say("Kept from your latest work on this page: " + keptOver.join(", ") + ".");
      const filled = tool || keptOver.length > 0;
      if (filled) kept.save();
      // A filled-in tool makes the result on screen stale (a carried item "needs a schema"): ask again.
      const again = restored && restored.resubmit !== null && restored.resubmit !== undefined ? restored.resubmit
        : filled ? firstSubmitter(form) : null;
      // The arrival asks for the result again: not the user's submission.
      const asked = again !== null ? replay(form, again) : null;
      return Promise.resolve(asked).catch(function () { /* the server is away: the page says nothing new */ })
        .then(function () { focusNext(form, filled || !base.empty); });
    });
  });
}

// Writes into each empty text box marked data-keep (the Schema page's schema and referenced schemas) the text
// ``fields`` has for it; answers the names of those written.
function keepEmpty(form, fields) {
  const values = {};
  form.querySelectorAll("textarea[data-keep][name]").forEach(function (area) {
    const value = fields[area.name];
    if (!read(area).trim() && typeof value === "string" && value.trim()) {
      values[area.name] = value;
      const folded = area.closest("details"); // a kept text is not hidden away (the referenced schemas)
      if (folded) folded.open = true;
    }
  });
  if (Object.keys(values).length) apply(form, values);
  return Object.keys(values);
}

// A page that arrives partly filled (carried from the step before): focus the first empty field, the next
// thing to do; one that arrives complete (``carried``: filled by the step before or from the kept tools) with
// a result: the result's heading, what to read next. Not when the user is already somewhere.
function focusNext(form, carried) {
  if (document.activeElement && document.activeElement !== document.body) return;
  // Fields folded away (a closed <details>: the Schema page's referenced schemas) are optional.
  const areas = Array.prototype.filter.call(form.querySelectorAll("textarea[name]"), function (a) {
    return !a.closest("details:not([open])");
  });
  const filled = areas.filter(function (a) { return read(a).trim(); });
  const empty = areas.filter(function (a) { return !read(a).trim(); });
  if (!filled.length) return;
  if (empty.length) {
    const handle = editorOf(empty[0]);
    (handle && handle.editing ? handle : empty[0]).focus();
    return;
  }
  const target = carried && firstSubmitter(form).target;
  const result = target && document.querySelector(target);
  const heading = result && (result.querySelector("h2, h3") || result.firstElementChild);
  if (!heading) return;
  if (!heading.hasAttribute("tabindex")) heading.setAttribute("tabindex", "-1");
  heading.focus();
}
