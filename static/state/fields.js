// A form's fields as its kept draft holds them: {name: value} ({"name=value": checked} for a radio), read and
// written through the code editor when a textarea has one.
// Uses the global window.InspectorEditor (static/editor.js, built from editor/src/main.js): get(id) -> a handle
// with getValue(), setValue(text), onChange(fn), setMarkers(list), focus() and editing; null without the editor.

const SKIP_TYPES = ["file", "hidden", "submit", "button", "reset", "image", "password"];

export function editorOf(el) { return window.InspectorEditor && el.id ? window.InspectorEditor.get(el.id) : null; }

// The fields a draft keeps: named inputs, text boxes and selects, but no files, buttons or passwords.
export function fieldsOf(form) {
  return Array.prototype.filter.call(form.elements, function (el) {
    return el.name && /^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName) && SKIP_TYPES.indexOf(el.type) < 0;
  });
}

function keyOf(el) { return el.type === "radio" ? el.name + "=" + el.value : el.name; }

export function read(el) {
  if (el.type === "checkbox" || el.type === "radio") return el.checked;
  const handle = el.tagName === "TEXTAREA" && editorOf(el);
  return handle ? handle.getValue() : el.value;
}

export function write(el, value) {
  if (el.type === "checkbox" || el.type === "radio") { el.checked = Boolean(value); return; }
  const handle = el.tagName === "TEXTAREA" && editorOf(el);
  if (handle) handle.setValue(String(value));
  else el.value = String(value);
}

export function snapshot(form) {
  const out = {};
  fieldsOf(form).forEach(function (el) { out[keyOf(el)] = read(el); });
  return out;
}

// Writes the fields ``values`` names (others stay); answers whether any changed.
export function apply(form, values) {
  let changed = false;
  fieldsOf(form).forEach(function (el) {
    const key = keyOf(el);
    if (!Object.prototype.hasOwnProperty.call(values, key) || read(el) === values[key]) return;
    write(el, values[key]);
    changed = true;
  });
  return changed;
}

// Every field back to what the page was served with, its text boxes empty ("Clear").
export function reset(form) {
  fieldsOf(form).forEach(function (el) {
    if (el.type === "checkbox" || el.type === "radio") el.checked = el.defaultChecked;
    else if (el.tagName === "SELECT") {
      Array.prototype.forEach.call(el.options, function (o) { o.selected = o.defaultSelected; });
    } else write(el, "");
  });
}

// The text of each of the form's text boxes, in document order.
export function textsOf(form) { return Array.prototype.map.call(form.querySelectorAll("textarea[name]"), read); }

// A short fingerprint of a text ("length:FNV-1a in hex"): equal texts have equal ones.
export function hash(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) { h ^= text.charCodeAt(i); h = Math.imul(h, 0x01000193); }
  return text.length + ":" + (h >>> 0).toString(16);
}

// What the server put in the textareas (their text as the page arrived): a draft of other text does not
// overwrite it (a carried item, an example), but any draft fills a page that arrived empty.
export function baseOf(form) {
  const areas = form.querySelectorAll("textarea[name]");
  const texts = Array.prototype.map.call(areas, function (a) { return a.defaultValue; });
  return { empty: texts.every(function (t) { return !t.trim(); }), hash: hash(texts.join("\u0000")) };
}
