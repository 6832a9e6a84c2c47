// The notes beside text boxes that their text is not the file uploaded into them ([data-replaced-for="<field>"],
// templates/_macros.html not_the_file) are kept with the draft, as their text and links ([tag, text, attributes]),
// and shown again with the text they are about. Each note shown again gets the event "inspector:note" (bubbling),
// which static/app.js listens for: it hides the note once that text is edited.

const NOTE_TAGS = ["STRONG", "A", "CODE"];

// The notes shown in ``form``: [{field, parts: [[tag ("" for text), text, {attribute: value}], ...]}, ...].
export function notesOf(form) {
  return Array.prototype.map.call(form.querySelectorAll("[data-replaced-for]:not([hidden])"), function (note) {
    return { field: note.dataset.replacedFor, parts: Array.prototype.map.call(note.childNodes, function (node) {
      if (node.nodeType !== 1) return ["", node.textContent, {}];
      const attributes = {};
      Array.prototype.forEach.call(node.attributes, function (a) { attributes[a.name] = a.value; });
      return [node.tagName, node.textContent, attributes];
    }) };
  });
}

// Shows kept ``notes`` (as notesOf gives them) in their places; only a few tags and attributes are made again.
export function showNotes(form, notes) {
  (notes || []).forEach(function (kept) {
    const note = Array.prototype.find.call(form.querySelectorAll("[data-replaced-for]"), function (el) {
      return el.dataset.replacedFor === kept.field;
    });
    if (!note || !Array.isArray(kept.parts)) return;
    note.replaceChildren.apply(note, kept.parts.map(function (part) {
      if (NOTE_TAGS.indexOf(part[0]) < 0) return document.createTextNode(String(part[1]));
      const el = document.createElement(part[0]);
      Object.keys(part[2] || {}).forEach(function (name) {
        if (/^(class|href|data-[a-z-]+)$/.test(name)) el.setAttribute(name, String(part[2][name]));
      });
      el.textContent = String(part[1]);
      return el;
    }));
    note.hidden = false;
    note.dispatchEvent(new CustomEvent("inspector:note", { bubbles: true }));
  });
}
