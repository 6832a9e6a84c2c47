// History entries: each keeps its own draft too (IndexedDB "entry:<id>:<path>"), so Back brings back the text that
// entry showed (an example or a carried item opened after typing does not cost the typed text). An entry's id is
// kept in its history.state (inspectorEntry); the ids whose drafts are kept are listed in localStorage.

import { drafts } from "./store.js";

const ENTRIES_KEY = "inspector:entries", ENTRIES_MAX = 30;

// The ids of the entries whose drafts are kept, oldest first.
export function entryIds() {
  try { return JSON.parse(localStorage.getItem(ENTRIES_KEY) || "[]"); } catch (e) { return []; }
}

// Where the draft of entry ``id`` on this page is kept.
export function entryKey(id) { return "entry:" + id + ":" + location.pathname; }

// {id, returning}: ``returning`` when Back/Forward or a reload came back to an entry these scripts had named.
export function entryId() {
  const state = history.state && typeof history.state === "object" ? history.state : {};
  // Only Back/Forward and reload come back to an entry: a link to the same URL (an example clicked again) is a
  // new page that replaces the entry and keeps its state (left before this runs, it keeps the old id, and so the
  // old entry's text: nothing is lost).
  const navigation = performance.getEntriesByType && performance.getEntriesByType("navigation")[0];
  const returning = !navigation || navigation.type === "reload" || navigation.type === "back_forward";
  if (returning && typeof state.inspectorEntry === "string") return { id: state.inspectorEntry, returning: true };
  const id = Date.now().toString(36) + Math.random().toString(36).slice(2, 8);
  try { history.replaceState(Object.assign({}, state, { inspectorEntry: id }), ""); }
  catch (e) { return { id: id, returning: false }; }
  // The oldest entries' drafts go, on every page: a long day of pages does not fill the disk.
  const ids = entryIds();
  ids.push(id);
  ids.splice(0, Math.max(0, ids.length - ENTRIES_MAX)).forEach(function (old) {
    drafts.removeEvery("entry:" + old + ":").catch(function () { /* storage off: nothing to drop */ });
  });
  try { localStorage.setItem(ENTRIES_KEY, JSON.stringify(ids)); } catch (e) { /* storage off */ }
  return { id: id, returning: false };
}

// Another history entry's backup (written as it was left, its IndexedDB write perhaps cut off): it becomes that
// entry's own draft, unless a newer one is there, so Back to it still finds its text. Done before the arrival
// goes on, so it is written once the page shows its text. Answers a Promise, or null when there is nothing to do.
export function rescue(backup, entry) {
  if (!backup || !backup.fields || !backup.entry || backup.entry === entry) return null;
  const where = entryKey(backup.entry);
  return drafts.get(where).then(function (found) {
    if (!found || backup.saved > found.saved) return drafts.put(where, backup);
  }).catch(function () { /* storage off: the page's draft still holds it */ });
}
