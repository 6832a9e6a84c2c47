// The tools of this session: function tools met in any field are kept in this browser (localStorage: shared by
// its tabs, until "Forget" in the tools bar) as {name: definition text}, and offered as buttons above every
// field marked data-tools. What is a tool definition and what a pasted call names is the server's word (POST
// /api/tools, webapp/core/session_tools.py; its URL is <body data-tools-url>): these scripts spell no shape.
// Nothing is stored on the server; the tools stay here.
// Forms whose text a tool put into a field replaces register how that is offered back (setReplacer).

import { hash, read, write } from "./fields.js";

const TOOLS_KEY = "inspector:tools", FORGOTTEN_KEY = "inspector:forgotten";
const PARSE_MAX = 1024 * 1024; // characters of a text sent to be looked into for tools (more is a document)

const called = {}; // hash of a text asked about -> the function a call in it names (null: none)
const pending = {}; // hash of a text being asked about -> that request

function toolsUrl() { return document.body.dataset.toolsUrl || "/api/tools"; }

function loadTools() {
  try { return JSON.parse(localStorage.getItem(TOOLS_KEY) || "{}"); } catch (e) { return {}; }
}
// Tools "Forget" dropped ({name: definition}): a restored draft or an example does not teach them again; the
// user's own submission of one does.
function loadForgotten() {
  try { return JSON.parse(localStorage.getItem(FORGOTTEN_KEY) || "{}"); } catch (e) { return {}; }
}
function forgetTools() {
  const forgotten = Object.assign(loadForgotten(), loadTools());
  try {
    localStorage.setItem(FORGOTTEN_KEY, JSON.stringify(forgotten));
    localStorage.removeItem(TOOLS_KEY);
  } catch (e) { /* storage off: nothing kept */ }
  offerAll();
}
function storeTools(found, byUser) {
  const tools = loadTools(), forgotten = loadForgotten();
  let added = false, remembered = false;
  found.forEach(function (tool) {
    const definition = JSON.stringify(tool.definition, null, 2);
    if (forgotten[tool.name] === definition) {
      if (!byUser) return;
      delete forgotten[tool.name];
      remembered = true;
    }
    if (tools[tool.name] !== definition) { tools[tool.name] = definition; added = true; }
  });
  if (remembered) {
    try { localStorage.setItem(FORGOTTEN_KEY, JSON.stringify(forgotten)); } catch (e) { /* storage off */ }
  }
  if (!added) return;
  try { localStorage.setItem(TOOLS_KEY, JSON.stringify(tools)); } catch (e) { return; }
  offerAll();
}

// A text over the request limit (body data-max-bytes, webapp/web/limits.py) is not sent: the page refuses it.
function overLimit(text) {
  const limit = parseInt(document.body.getAttribute("data-max-bytes") || "0", 10);
  return limit > 0 && new Blob([text]).size > limit;
}

// Keeps the tools the texts define; answers a Promise of, for each text, the function a call in it names (or
// null). Each text is asked about once per page (texts over PARSE_MAX never: they are documents, not tools), but
// again when the user submits it while forgotten tools may be in it (``byUser``).
export function lookIn(texts, byUser) {
  const wanted = [], waits = [], again = byUser && Object.keys(loadForgotten()).length > 0;
  texts.forEach(function (text) {
    if (!text || !text.trim() || text.length > PARSE_MAX || overLimit(text)) return;
    if (hash(text) in called && !again) return;
    if (pending[hash(text)]) waits.push(pending[hash(text)]); // asked already, the answer on its way
    else if (wanted.indexOf(text) < 0) wanted.push(text);
  });
  const asked = !wanted.length ? Promise.resolve() : fetch(toolsUrl(), {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ texts: wanted }),
  }).then(function (response) { return response.ok ? response.json() : null; }).then(function (found) {
    if (!found) return;
    wanted.forEach(function (text, i) { called[hash(text)] = found.calls[i] || null; });
    storeTools(found.tools, byUser);
  }).catch(function () { /* the server is away: no tools learnt this time */ });
  wanted.forEach(function (text) { pending[hash(text)] = asked; });
  asked.then(function () { wanted.forEach(function (text) { delete pending[hash(text)]; }); });
  return Promise.all([asked].concat(waits)).then(function () {
    return texts.map(function (text) { return (text && called[hash(text)]) || null; });
  });
}

// The bar above one tools field: a button per kept tool, "all N", and "Forget"; none without kept tools.
function offerTools(area) {
  const tools = loadTools(), names = Object.keys(tools).sort();
  let bar = area.parentNode.querySelector('.tools-bar[data-for="' + area.id + '"]');
  if (!names.length) { if (bar) bar.remove(); return; }
  if (!bar) {
    bar = document.createElement("div");
    bar.className = "tools-bar";
    bar.dataset.for = area.id;
    area.before(bar);
  }
  bar.replaceChildren(document.createTextNode("Tools kept in this browser:"));
  names.forEach(function (name) {
    const button = document.createElement("button");
    button.type = "button";
    button.dataset.tool = name;
    button.textContent = name;
    button.title = "Put the definition of " + name + " here";
    bar.appendChild(button);
  });
  if (names.length > 1) {
    const all = document.createElement("button");
    all.type = "button";
    all.dataset.tool = "";
    all.textContent = "all " + names.length;
    all.title = "Put all of them here: the call's name picks one";
    bar.appendChild(all);
  }
  const forget = document.createElement("button");
  forget.type = "button";
  forget.className = "tools-forget";
  forget.textContent = "Forget";
  forget.title = "Forget these tools in every tab of this browser (the fields keep their text, and teach them " +
    "again only when you submit them)";
  bar.appendChild(forget);
}
export function offerAll() { document.querySelectorAll("textarea[data-tools]").forEach(offerTools); }

const replacers = new WeakMap(); // form -> function(change): runs change and offers Undo for it
// ``replacer(change)`` runs ``change`` (a kept tool put into a field of ``form``) and offers back what it replaced.
export function setReplacer(form, replacer) { replacers.set(form, replacer); }

function useTool(area, name) {
  const tools = loadTools();
  const text = name ? tools[name]
    : "[\n" + Object.keys(tools).sort().map(function (n) { return tools[n]; }).join(",\n") + "\n]";
  if (text === undefined) return;
  const change = function () {
    write(area, text);
    area.dispatchEvent(new Event("change", { bubbles: true }));
  };
  const replacer = area.form && replacers.get(area.form);
  if (replacer) replacer(change);
  else change();
}

// An empty tools field on a page whose other field holds a call to a tool of this session: fill it in.
// Done once the server has said which tools the fields define and which function each field's call names.
// ``status(text)`` says so. Answers a Promise of whether it filled one in.
export function fillTool(form, status) {
  const areas = Array.prototype.slice.call(form.querySelectorAll("textarea[name]"));
  return lookIn(areas.map(read)).then(function (names) {
    let filled = false;
    form.querySelectorAll("textarea[data-tools]").forEach(function (area) {
      if (read(area).trim()) return;
      const tools = loadTools();
      filled = areas.some(function (other, i) {
        const name = other !== area && names[i];
        if (!name || !tools[name]) return false;
        write(area, tools[name]);
        status("The definition of " + name + " is filled in from the tools kept in this browser.");
        return true;
      }) || filled;
    });
    return filled;
  });
}

// Whether a tools field of ``form`` is empty.
export function wantsTool(form) {
  return Array.prototype.some.call(form.querySelectorAll("textarea[data-tools]"), function (a) {
    return !read(a).trim();
  });
}

// The bars' buttons, and another tab that learnt or forgot tools: this one's bars follow.
export function listenForTools() {
  window.addEventListener("storage", function (event) {
    if (event.key === TOOLS_KEY || event.key === null) offerAll();
  });
  document.addEventListener("click", function (event) {
    if (!event.target.closest || !event.target.closest(".tools-bar button.tools-forget")) return;
    forgetTools();
  });
  document.addEventListener("click", function (event) {
    const button = event.target.closest && event.target.closest(".tools-bar button[data-tool]");
    if (!button) return;
    const area = document.getElementById(button.parentNode.dataset.for);
    if (area) useTool(area, button.dataset.tool);
  });
}
