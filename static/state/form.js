// One form's kept input (form[data-draft]): the draft bar above it (what is kept, "Share link", "Clear"), the
// draft saved to IndexedDB as it is typed (one entry per page path, and one per history entry), with what showed
// its result and the notes beside its fields, and "Clear", which forgets it.
// Listens to the form's input and change events (static/app.js and static/diff.js send them when they fill a
// field), to the editor's onChange (static/editor.js) and to htmx:beforeRequest (a submission: kept, and its
// texts looked into for tools).

import { editorOf, baseOf, fieldsOf, reset, snapshot, textsOf } from "./fields.js";
import { entryId, entryIds, entryKey } from "./entries.js";
import { notesOf } from "./notes.js";
import { drafts } from "./store.js";
import { isReplaying, resultOf, submission } from "./submit.js";
import { lookIn, setReplacer } from "./tools.js";
import { UndoOffer } from "./undo.js";

const BACKUP_MAX = 1024 * 1024; // characters of a draft also written synchronously when the page goes away

const KEPT_HERE = "Your input is kept in this browser only.";

export class KeptForm {
  constructor(form) {
    this.form = form;
    this.key = "draft:" + location.pathname;
    const named = entryId();
    this.entry = named.id;
    this.returning = named.returning; // Back/Forward or a reload came back to this history entry
    this.entryKey = entryKey(this.entry);
    this.base = baseOf(form);
    // What is kept (IndexedDB, under key and entryKey). previous: the work an example or a carried item replaced
    // on this entry ({fields, saved, submitted}), kept with the entry so its Undo offer outlives a reload and
    // Back/Forward.
    this.draft = { base: this.base.hash, fields: null, submitted: null, saved: 0, entry: this.entry, previous: null };
    this.timer = null;
    this.cleared = false; // "Clear" was pressed and nothing has been kept since

    const bar = document.createElement("div");
    bar.className = "draft-bar";
    this.status = document.createElement("span");
    this.status.className = "muted draft-status";
    this.status.setAttribute("role", "status");
    this.status.textContent = KEPT_HERE;
    this.passing = false; // the status says something about the text shown, true until that text is replaced
    this.share = document.createElement("button");
    this.share.type = "button";
    this.share.className = "draft-share";
    this.share.textContent = "Share link";
    this.share.title = "A link holding this input in its #fragment, which browsers never send to a server";
    this.clear = document.createElement("button");
    this.clear.type = "button";
    this.clear.className = "draft-clear";
    this.clear.textContent = "Clear";
    this.clear.title = "Empty the fields and forget the kept input";
    this.url = document.createElement("input");
    this.url.type = "text";
    this.url.readOnly = true;
    this.url.className = "share-url";
    this.url.hidden = true;
    this.url.setAttribute("aria-label", "Share link");
    bar.append(this.status, this.share, this.clear, this.url);
    form.prepend(bar);
    this.undo = new UndoOffer(this);
  }

  say(text) { this.status.textContent = text; this.passing = false; }

  // Says ``text`` about the input shown ("your input is back, kept since …") until new input replaces it.
  sayOfInput(text) { this.say(text); this.passing = true; }

  // New input: what was said about the text it replaced no longer holds.
  replaced() {
    if (!this.passing) return;
    this.say(KEPT_HERE);
  }

  // Keeps what the form holds now; answers a Promise (settled once written, or said not to be).
  save() {
    clearTimeout(this.timer);
    this.timer = null;
    this.draft.fields = snapshot(this.form);
    this.draft.notes = notesOf(this.form);
    this.draft.saved = Date.now();
    const afterClear = this.cleared; // a save begun before "Clear" does not unsay it
    return Promise.all([drafts.put(this.key, this.draft), drafts.put(this.entryKey, this.draft)]).then(() => {
      if (!afterClear || !this.cleared) return;
      this.cleared = false;
      this.say(KEPT_HERE);
    }, () => {
      this.say("Your input could not be kept in this browser (storage is off or full).");
    });
  }

  later() {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.save(), 250);
  }

  // Leaving with a save pending: IndexedDB may not finish while the page unloads, so a small input is also
  // written to localStorage at once (synchronous); the newer of the two is used on arrival.
  saveNow() {
    if (!this.timer) return;
    this.save();
    const text = JSON.stringify(this.draft);
    if (text.length > BACKUP_MAX) return;
    try { localStorage.setItem(this.key, text); } catch (e) { /* too large or storage off: IndexedDB only */ }
  }

  listen() {
    const form = this.form, later = () => { this.replaced(); this.later(); };
    form.addEventListener("input", later);
    form.addEventListener("change", later);
    fieldsOf(form).forEach(function (el) {
      const handle = el.tagName === "TEXTAREA" && editorOf(el);
      if (handle) handle.onChange(later);
    });
    window.addEventListener("pagehide", () => this.saveNow());
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "hidden") this.saveNow();
    });
    document.addEventListener("htmx:beforeRequest", (event) => {
      const elt = event.detail.elt;
      if (!form.contains(elt) && elt !== form && elt.form !== form) return;
      this.draft.submitted = submission(form, event.detail);
      lookIn(textsOf(form), !isReplaying());
      this.save();
    });
    this.clear.addEventListener("click", () => this.forget());
    // A kept tool put into a field (the tools bar) replaces its text: offered back as a link's replacement is.
    setReplacer(form, (change) => {
      const before = { fields: snapshot(form), saved: Date.now(), submitted: this.draft.submitted };
      change();
      this.undo.offer(before, true);
      this.save();
    });
  }

  // "Clear": the fields emptied, and nothing of this page kept in this browser any more.
  forget() {
    const form = this.form;
    reset(form);
    clearTimeout(this.timer);
    this.timer = null;
    this.draft.submitted = null;
    this.draft.previous = null;
    drafts.remove(this.key).catch(function () { /* nothing kept */ });
    // Every history entry's text of this page goes too: Back must not bring the cleared text back.
    entryIds().concat([this.entry]).forEach(function (id) {
      drafts.remove(entryKey(id)).catch(function () { /* nothing kept */ });
    });
    this.undo.drop();
    // A reload right after may abort that removal with the page: a tombstone, written at once, outdates the
    // kept draft on arrival, which then removes it for good.
    try {
      localStorage.setItem(this.key, JSON.stringify({ base: this.draft.base, fields: null, submitted: null,
                                                      saved: Date.now(), entry: this.entry }));
    }
    catch (e) { /* storage off */ }
    this.url.hidden = true;
    const result = resultOf(form);
    if (result) result.replaceChildren();
    document.querySelectorAll("textarea[data-editor]").forEach(function (area) {
      const handle = editorOf(area);
      if (handle) handle.setMarkers([]);
    });
    this.say("Cleared: nothing of this page is kept in this browser.");
    this.cleared = true; // true until the next save keeps this page's input again (save() then says so)
    const first = form.querySelector("textarea[name]");
    if (first) (editorOf(first) || first).focus();
  }
}
