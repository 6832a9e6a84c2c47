// The Undo offer: the text an example, a carried item, a share link or a kept tool replaced on this page is
// offered back by a button in the draft bar ("Undo: bring back your previous text"). What is on offer is kept
// with the entry's draft (draft.previous: {fields, saved, submitted}), so the offer outlives a reload and
// Back/Forward; taking it asks again for the result that text had, if it had one.

import { apply, snapshot } from "./fields.js";
import { resultOf, submitAgain } from "./submit.js";

export class UndoOffer {
  // ``kept``: the form's KeptForm (static/state/form.js).
  constructor(kept) {
    this.kept = kept;
    this.button = null;
  }

  // Offers ``previous`` ({fields, saved, submitted}) back, if it is typed text that differs from what the page
  // holds now. ``replacing``: the text just replaced is offered instead of what is on offer already (a share link
  // followed, a kept tool put in); otherwise an offer already there stays.
  offer(previous, replacing) {
    const kept = this.kept, form = kept.form;
    if (this.button && !replacing) return;
    const typed = Object.keys(previous.fields).some(function (name) {
      const value = previous.fields[name];
      return typeof value === "string" && value.trim();
    });
    const now = snapshot(form);
    if (!typed || Object.keys(previous.fields).every(function (name) { return previous.fields[name] === now[name]; })) {
      return;
    }
    this.drop();
    kept.draft.previous = { fields: previous.fields, saved: previous.saved, submitted: previous.submitted || null };
    const undo = this.button = document.createElement("button");
    undo.type = "button";
    undo.className = "draft-undo";
    undo.textContent = "Undo: bring back your previous text";
    undo.title = "Put back what this page held before (kept since " +
      new Date(previous.saved).toLocaleTimeString() + ")";
    undo.addEventListener("click", () => {
      apply(form, previous.fields);
      this.drop();
      // The result on screen was the replaced text's: the previous text's result is asked for again, if it had one.
      kept.draft.previous = null;
      kept.draft.submitted = previous.submitted || null;
      kept.save();
      kept.say("Your previous text is back.");
      const result = resultOf(form);
      if (result) result.replaceChildren();
      if (kept.draft.submitted) submitAgain(form, kept.draft.submitted);
    });
    kept.share.before(undo);
  }

  // No offer any more (Clear).
  drop() {
    if (this.button) this.button.remove();
    this.button = null;
  }
}
