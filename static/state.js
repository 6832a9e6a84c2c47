// Work is never lost, and nothing of it goes to the server:
// - each page's form (form[data-draft]) is kept in this browser (IndexedDB, one entry per page path) as it is
//   typed, and restored on Back, reload and return; the bar above the form says so and has "Clear";
// - "Share link" puts small inputs in the URL fragment (deflate-raw, base64url): browsers never send it; a link
//   opened shows its input as an example does, the text it replaced offered back (Undo);
// - function tools met in any field are kept in this browser (localStorage: shared by its tabs, until "Forget"
//   in the tools bar) and offered on every field marked data-tools; the server says which are tools (POST
//   /api/tools), nothing is kept there.
// The page works without this file; with it, a restored page is submitted again so its result is back too.
(function () {
  "use strict";

  var DB_NAME = "inspector", STORE = "drafts", TOOLS_KEY = "inspector:tools", FORGOTTEN_KEY = "inspector:forgotten";
  var SHARE_MAX = 8000; // characters in the fragment: a link that still fits in a chat message or an issue
  var PARSE_MAX = 1024 * 1024; // characters of a text sent to be looked into for tools (more is a document)
  var BACKUP_MAX = 1024 * 1024; // characters of a draft also written synchronously when the page goes away
  var SKIP_TYPES = ["file", "hidden", "submit", "button", "reset", "image", "password"];

  // ---- storage: IndexedDB (a 15 MB document does not fit localStorage's few MB) ----
  var opened = null;
  function database() {
    if (!opened) {
      opened = new Promise(function (resolve, reject) {
        var request = indexedDB.open(DB_NAME, 1);
        request.onupgradeneeded = function () { request.result.createObjectStore(STORE); };
        request.onsuccess = function () { resolve(request.result); };
        request.onerror = function () { reject(request.error); };
      });
    }
    return opened;
  }
  function withStore(mode, action) {
    return database().then(function (db) {
      return new Promise(function (resolve, reject) {
        var tx = db.transaction(STORE, mode);
        var request = action(tx.objectStore(STORE));
        tx.oncomplete = function () { resolve(request.result); };
        tx.onerror = tx.onabort = function () { reject(tx.error); };
      });
    });
  }
  var drafts = {
    get: function (key) { return withStore("readonly", function (s) { return s.get(key); }); },
    put: function (key, value) { return withStore("readwrite", function (s) { return s.put(value, key); }); },
    remove: function (key) { return withStore("readwrite", function (s) { return s.delete(key); }); },
  };

  // ---- the form's fields ----
  function editorOf(el) { return window.InspectorEditor && el.id ? window.InspectorEditor.get(el.id) : null; }
  function fieldsOf(form) {
    return Array.prototype.filter.call(form.elements, function (el) {
      return el.name && /^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName) && SKIP_TYPES.indexOf(el.type) < 0;
    });
  }
  function keyOf(el) { return el.type === "radio" ? el.name + "=" + el.value : el.name; }
  function read(el) {
    if (el.type === "checkbox" || el.type === "radio") return el.checked;
    var handle = el.tagName === "TEXTAREA" && editorOf(el);
    return handle ? handle.getValue() : el.value;
  }
  function write(el, value) {
    if (el.type === "checkbox" || el.type === "radio") { el.checked = Boolean(value); return; }
    var handle = el.tagName === "TEXTAREA" && editorOf(el);
    if (handle) handle.setValue(String(value));
    else el.value = String(value);
  }
  function snapshot(form) {
    var out = {};
    fieldsOf(form).forEach(function (el) { out[keyOf(el)] = read(el); });
    return out;
  }
  function apply(form, values) {
    var changed = false;
    fieldsOf(form).forEach(function (el) {
      var key = keyOf(el);
      if (!Object.prototype.hasOwnProperty.call(values, key) || read(el) === values[key]) return;
      write(el, values[key]);
      changed = true;
    });
    return changed;
  }

  // What the server put in the textareas (their text as the page arrived): a draft of other text does not
  // overwrite it (a carried item, an example), but any draft fills a page that arrived empty.
  function hash(text) {
    var h = 0x811c9dc5;
    for (var i = 0; i < text.length; i++) { h ^= text.charCodeAt(i); h = Math.imul(h, 0x01000193); }
    return text.length + ":" + (h >>> 0).toString(16);
  }
  function baseOf(form) {
    var texts = Array.prototype.map.call(form.querySelectorAll("textarea[name]"), function (a) { return a.defaultValue; });
    return { empty: texts.every(function (t) { return !t.trim(); }), hash: hash(texts.join("\u0000")) };
  }

  // What showed the result, to ask for it again on arrival without touching a control (clicking a checkbox
  // would toggle it): {post: its URL, target: "#id" of the result, values: what the submitter adds to the form
  // (a button's name=value: the pager's page, Format's action)}. null: nothing was submitted.
  function submission(form, detail) {
    var elt = detail.elt, values = Object.assign({}, detail.etc && detail.etc.values); // a submission again
    if (elt.tagName === "BUTTON" && elt.name) values[elt.name] = elt.value;
    // Controls of the form outside it (form="…", in the result): absent on arrival, so kept here.
    Array.prototype.forEach.call(form.elements, function (el) {
      if (form.contains(el) || !el.name || el === elt || el.type !== "checkbox") return;
      if (el.checked) values[el.name] = el.value || "on";
    });
    var target = detail.target && detail.target.id ? "#" + detail.target.id : null;
    return { post: detail.requestConfig ? detail.requestConfig.path : elt.getAttribute("hx-post"), target: target,
             values: values };
  }
  function submitAgain(form, submitted) {
    if (typeof submitted === "number") { // a draft kept by an older version of this file: its index
      var elt = submitted >= 0 && form.querySelectorAll("[hx-post]")[submitted];
      submitted = elt && elt.tagName === "BUTTON" ? describe(form, elt) : describe(form, null);
    }
    if (!submitted || !submitted.post || !window.htmx) { form.requestSubmit(); return; }
    var options = { source: form, values: submitted.values || {} };
    var target = submitted.target && document.querySelector(submitted.target);
    if (target) options.target = target;
    return window.htmx.ajax("POST", submitted.post, options);
  }
  // The submission a click on ``elt`` (null: the form's own hx-post) would make.
  function describe(form, elt) {
    var source = elt || form, values = {};
    if (elt && elt.name) values[elt.name] = elt.value;
    var holder = source.closest("[hx-target]");
    return { post: source.getAttribute("hx-post") || form.getAttribute("hx-post"), values: values,
             target: holder ? holder.getAttribute("hx-target") : null };
  }

  // ---- share link: the fields, deflate-raw, base64url, after "#input=" ----
  function toBase64url(bytes) {
    var binary = "";
    for (var i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
    return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }
  function fromBase64url(text) {
    var binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
    var bytes = new Uint8Array(binary.length);
    for (var i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return bytes;
  }
  function encodeShare(values) {
    var stream = new Blob([JSON.stringify(values)]).stream().pipeThrough(new CompressionStream("deflate-raw"));
    return new Response(stream).arrayBuffer().then(function (buffer) { return toBase64url(new Uint8Array(buffer)); });
  }
  function decodeShare(text) {
    var stream = new Blob([fromBase64url(text)]).stream().pipeThrough(new DecompressionStream("deflate-raw"));
    return new Response(stream).text().then(JSON.parse);
  }
  function sharedInput() {
    var match = /^#input=([A-Za-z0-9_-]+)$/.exec(location.hash);
    return match ? decodeShare(match[1]) : null;
  }

  // ---- tools of this session: {name: definition text} ----
  // What is a tool definition and what a pasted call names is the server's word (POST /api/tools,
  // webapp/core/session_tools.py): this file spells no shape. Nothing is stored there; the tools stay here.
  var TOOLS_URL = (document.currentScript && document.currentScript.dataset.toolsUrl) || "/api/tools";
  var called = {}; // hash of a text asked about -> the function a call in it names (null: none)
  var pending = {}; // hash of a text being asked about -> that request
  function loadTools() {
    try { return JSON.parse(localStorage.getItem(TOOLS_KEY) || "{}"); } catch (e) { return {}; }
  }
  // Tools "Forget" dropped ({name: definition}): a restored draft or an example does not teach them again; the
  // user's own submission of one does.
  function loadForgotten() {
    try { return JSON.parse(localStorage.getItem(FORGOTTEN_KEY) || "{}"); } catch (e) { return {}; }
  }
  function forgetTools() {
    var forgotten = Object.assign(loadForgotten(), loadTools());
    try {
      localStorage.setItem(FORGOTTEN_KEY, JSON.stringify(forgotten));
      localStorage.removeItem(TOOLS_KEY);
    } catch (e) { /* storage off: nothing kept */ }
    offerAll();
  }
  function storeTools(found, byUser) {
    var tools = loadTools(), forgotten = loadForgotten(), added = false, remembered = false;
    found.forEach(function (tool) {
      var definition = JSON.stringify(tool.definition, null, 2);
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
  // Keeps the tools the texts define; answers, for each text, the function a call in it names (or null).
  // Each text is asked about once per page (texts over PARSE_MAX never: they are documents, not tools), but again
  // when the user submits it while forgotten tools may be in it (``byUser``).
  // A text over the request limit (body data-max-bytes, webapp/web/limits.py) is not sent: the page refuses it.
  function overLimit(text) {
    var limit = parseInt(document.body.getAttribute("data-max-bytes") || "0", 10);
    return limit > 0 && new Blob([text]).size > limit;
  }
  function lookIn(texts, byUser) {
    var wanted = [], waits = [], again = byUser && Object.keys(loadForgotten()).length > 0;
    texts.forEach(function (text) {
      if (!text || !text.trim() || text.length > PARSE_MAX || overLimit(text)) return;
      if (hash(text) in called && !again) return;
      if (pending[hash(text)]) waits.push(pending[hash(text)]); // asked already, the answer on its way
      else if (wanted.indexOf(text) < 0) wanted.push(text);
    });
    var asked = !wanted.length ? Promise.resolve() : fetch(TOOLS_URL, {
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
  function offerTools(area) {
    var tools = loadTools(), names = Object.keys(tools).sort();
    var bar = area.parentNode.querySelector('.tools-bar[data-for="' + area.id + '"]');
    if (!names.length) { if (bar) bar.remove(); return; }
    if (!bar) {
      bar = document.createElement("div");
      bar.className = "tools-bar";
      bar.dataset.for = area.id;
      area.before(bar);
    }
    bar.replaceChildren(document.createTextNode("Tools kept in this browser:"));
    names.forEach(function (name) {
      var button = document.createElement("button");
      button.type = "button";
      button.dataset.tool = name;
      button.textContent = name;
      button.title = "Put the definition of " + name + " here";
      bar.appendChild(button);
    });
    if (names.length > 1) {
      var all = document.createElement("button");
      all.type = "button";
      all.dataset.tool = "";
      all.textContent = "all " + names.length;
      all.title = "Put all of them here: the call's name picks one";
      bar.appendChild(all);
    }
    var forget = document.createElement("button");
    forget.type = "button";
    forget.className = "tools-forget";
    forget.textContent = "Forget";
    forget.title = "Forget these tools in every tab of this browser (the fields keep their text, and teach them " +
      "again only when you submit them)";
    bar.appendChild(forget);
  }
  function offerAll() { document.querySelectorAll("textarea[data-tools]").forEach(offerTools); }
  // Another tab learnt or forgot tools: this one's bars follow.
  window.addEventListener("storage", function (event) { if (event.key === TOOLS_KEY || event.key === null) offerAll(); });
  var replacers = new WeakMap(); // form -> its setup's function(change): runs change and offers Undo for it
  function useTool(area, name) {
    var tools = loadTools();
    var text = name ? tools[name] : "[\n" + Object.keys(tools).sort().map(function (n) { return tools[n]; }).join(",\n") + "\n]";
    if (text === undefined) return;
    var change = function () {
      write(area, text);
      area.dispatchEvent(new Event("change", { bubbles: true }));
    };
    var replacer = area.form && replacers.get(area.form);
    if (replacer) replacer(change);
    else change();
  }
  // An empty tools field on a page whose other field holds a call to a tool of this session: fill it in.
  // Done once the server has said which tools the fields define and which function each field's call names.
  // Answers whether it filled one in.
  function fillTool(form, status) {
    var areas = Array.prototype.slice.call(form.querySelectorAll("textarea[name]"));
    return lookIn(areas.map(read)).then(function (names) {
      var filled = false;
      form.querySelectorAll("textarea[data-tools]").forEach(function (area) {
        if (read(area).trim()) return;
        var tools = loadTools();
        filled = areas.some(function (other, i) {
          var name = other !== area && names[i];
          if (!name || !tools[name]) return false;
          write(area, tools[name]);
          status("The definition of " + name + " is filled in from the tools kept in this browser.");
          return true;
        }) || filled;
      });
      return filled;
    });
  }
  function wantsTool(form) {
    return Array.prototype.some.call(form.querySelectorAll("textarea[data-tools]"), function (a) { return !read(a).trim(); });
  }

  // ---- history entries: each keeps its own draft too, so Back brings back the text that entry showed (an
  // example or a carried item opened after typing does not cost the typed text) ----
  var ENTRIES_KEY = "inspector:entries", ENTRIES_MAX = 30;
  // The ids of the entries whose drafts are kept, oldest first.
  function entryIds() {
    try { return JSON.parse(localStorage.getItem(ENTRIES_KEY) || "[]"); } catch (e) { return []; }
  }
  // {id, returning}: ``returning`` when Back/Forward or a reload came back to an entry this file had named.
  function entryId() {
    var state = history.state && typeof history.state === "object" ? history.state : {};
    // Only Back/Forward and reload come back to an entry: a link to the same URL (an example clicked again) is a
    // new page that replaces the entry and keeps its state (left before this runs, it keeps the old id, and so the
    // old entry's text: nothing is lost).
    var navigation = performance.getEntriesByType && performance.getEntriesByType("navigation")[0];
    var returning = !navigation || navigation.type === "reload" || navigation.type === "back_forward";
    if (returning && typeof state.inspectorEntry === "string") return { id: state.inspectorEntry, returning: true };
    var id = Date.now().toString(36) + Math.random().toString(36).slice(2, 8);
    try { history.replaceState(Object.assign({}, state, { inspectorEntry: id }), ""); }
    catch (e) { return { id: id, returning: false }; }
    // The oldest entries' drafts go: a long day of pages does not fill the disk.
    var ids = entryIds();
    ids.push(id);
    ids.splice(0, Math.max(0, ids.length - ENTRIES_MAX)).forEach(function (old) {
      drafts.remove("entry:" + old).catch(function () { /* gone already */ });
    });
    try { localStorage.setItem(ENTRIES_KEY, JSON.stringify(ids)); } catch (e) { /* storage off */ }
    return { id: id, returning: false };
  }

  // ---- one form ----
  function setup(form) {
    var key = "draft:" + location.pathname;
    var named = entryId(), entry = named.id, entryKey = "entry:" + entry + ":" + location.pathname;
    var base = baseOf(form);
    // previous: the work an example or a carried item replaced on this entry ({fields, saved, submitted}), kept
    // with the entry so its Undo offer outlives a reload and Back/Forward.
    var draft = { base: base.hash, fields: null, submitted: null, saved: 0, entry: entry, previous: null };
    var timer = null;

    var bar = document.createElement("div");
    bar.className = "draft-bar";
    var status = document.createElement("span");
    status.className = "muted draft-status";
    status.setAttribute("role", "status");
    status.textContent = "Your input is kept in this browser only.";
    var share = document.createElement("button");
    share.type = "button";
    share.className = "draft-share";
    share.textContent = "Share link";
    share.title = "A link holding this input in its #fragment, which browsers never send to a server";
    var clear = document.createElement("button");
    clear.type = "button";
    clear.className = "draft-clear";
    clear.textContent = "Clear";
    clear.title = "Empty the fields and forget the kept input";
    var url = document.createElement("input");
    url.type = "text";
    url.readOnly = true;
    url.className = "share-url";
    url.hidden = true;
    url.setAttribute("aria-label", "Share link");
    bar.append(status, share, clear, url);
    form.prepend(bar);
    function say(text) { status.textContent = text; }

    // The page arrived with other text (an example, a carried item) than the work kept for it: offer it back.
    // ``replacing``: the text just replaced is offered instead of what is on offer already (a share link followed,
    // a kept tool put in), if it is typed text that differs from what the page holds now.
    var undo = null;
    function offerUndo(previous, replacing) {
      if (undo && !replacing) return;
      var typed = Object.keys(previous.fields).some(function (name) {
        var value = previous.fields[name];
        return typeof value === "string" && value.trim();
      });
      var now = snapshot(form);
      if (!typed || Object.keys(previous.fields).every(function (name) { return previous.fields[name] === now[name]; })) {
        return;
      }
      if (undo) undo.remove();
      draft.previous = { fields: previous.fields, saved: previous.saved, submitted: previous.submitted || null };
      undo = document.createElement("button");
      undo.type = "button";
      undo.className = "draft-undo";
      undo.textContent = "Undo: bring back your previous text";
      undo.title = "Put back what this page held before (kept since " + new Date(previous.saved).toLocaleTimeString() + ")";
      undo.addEventListener("click", function () {
        apply(form, previous.fields);
        undo.remove();
        undo = null;
        // The result on screen was the replaced text's: the previous text's result is asked for again, if it had one.
        draft.previous = null;
        draft.submitted = previous.submitted || null;
        save();
        say("Your previous text is back.");
        var result = resultOf(form);
        if (result) result.replaceChildren();
        if (draft.submitted) submitAgain(form, draft.submitted);
      });
      share.before(undo);
    }

    function save() {
      clearTimeout(timer);
      timer = null;
      draft.fields = snapshot(form);
      draft.notes = notesOf(form);
      draft.saved = Date.now();
      return Promise.all([drafts.put(key, draft), drafts.put(entryKey, draft)]).catch(function () {
        say("Your input could not be kept in this browser (storage is off or full).");
      });
    }
    function later() {
      clearTimeout(timer);
      timer = setTimeout(save, 250);
    }
    // Leaving with a save pending: IndexedDB may not finish while the page unloads, so a small input is also
    // written to localStorage at once (synchronous); the newer of the two is used on arrival.
    function saveNow() {
      if (!timer) return;
      save();
      var text = JSON.stringify(draft);
      if (text.length > BACKUP_MAX) return;
      try { localStorage.setItem(key, text); } catch (e) { /* too large or storage off: IndexedDB only */ }
    }
    form.addEventListener("input", later);
    form.addEventListener("change", later);
    fieldsOf(form).forEach(function (el) {
      var handle = el.tagName === "TEXTAREA" && editorOf(el);
      if (handle) handle.onChange(later);
    });
    window.addEventListener("pagehide", saveNow);
    document.addEventListener("visibilitychange", function () {
      if (document.visibilityState === "hidden") saveNow();
    });
    document.addEventListener("htmx:beforeRequest", function (event) {
      var elt = event.detail.elt;
      if (!form.contains(elt) && elt !== form && elt.form !== form) return;
      draft.submitted = submission(form, event.detail);
      lookIn(Array.prototype.map.call(form.querySelectorAll("textarea[name]"), read), !replaying);
      save();
    });

    share.addEventListener("click", function () {
      encodeShare(snapshot(form)).then(function (data) {
        if (data.length > SHARE_MAX) {
          url.hidden = true;
          say("Too large for a link: " + data.length.toLocaleString("en") + " characters compressed; a link holds up to " +
              SHARE_MAX.toLocaleString("en") + ". Download or copy the text instead.");
          return;
        }
        url.value = location.origin + location.pathname + "#input=" + data;
        url.hidden = false;
        url.select();
        var copied = navigator.clipboard && window.isSecureContext
          ? navigator.clipboard.writeText(url.value) : Promise.reject(new Error("no clipboard"));
        copied.then(function () { say("Link copied: it holds the input in its #fragment, never sent to a server."); },
                    function () { say("Copy the link: it holds the input in its #fragment, never sent to a server."); });
      });
    });

    clear.addEventListener("click", function () {
      fieldsOf(form).forEach(function (el) {
        if (el.type === "checkbox" || el.type === "radio") el.checked = el.defaultChecked;
        else if (el.tagName === "SELECT") {
          Array.prototype.forEach.call(el.options, function (o) { o.selected = o.defaultSelected; });
        } else write(el, "");
      });
      clearTimeout(timer);
      timer = null;
      draft.submitted = null;
      draft.previous = null;
      drafts.remove(key).catch(function () { /* nothing kept */ });
      // Every history entry's text of this page goes too: Back must not bring the cleared text back.
      entryIds().concat([entry]).forEach(function (id) {
        drafts.remove("entry:" + id + ":" + location.pathname).catch(function () { /* nothing kept */ });
      });
      if (undo) undo.remove();
      undo = null;
      // A reload right after may abort that removal with the page: a tombstone, written at once, outdates the
      // kept draft on arrival, which then removes it for good.
      try {
        localStorage.setItem(key, JSON.stringify({ base: draft.base, fields: null, submitted: null, saved: Date.now(),
                                                   entry: entry }));
      }
      catch (e) { /* storage off */ }
      url.hidden = true;
      var result = resultOf(form);
      if (result) result.replaceChildren();
      document.querySelectorAll("textarea[data-editor]").forEach(function (area) {
        var handle = editorOf(area);
        if (handle) handle.setMarkers([]);
      });
      say("Cleared: nothing of this page is kept in this browser.");
      var first = form.querySelector("textarea[name]");
      if (first) (editorOf(first) || first).focus();
    });

    // A share link shows what it brings, as an example does, and offers back (Undo, kept with the entry) the work
    // it replaced: ``before`` ({fields, saved, submitted, previous}: a kept draft, or the page as it was). The
    // fragment is dropped once read, so a reload shows the kept text, never the link's again.
    function fromLink(values, before) {
      history.replaceState(Object.assign({}, history.state, { inspectorEntry: entry }), "",
                           location.pathname + location.search);
      apply(form, values);
      if (before && before.fields) offerUndo(before, true);
      if (before && before.previous) offerUndo(before.previous); // the link changed nothing: the older offer
      say("Filled in from the link.");
      return { resubmit: firstSubmitter(form) };
    }
    // A kept tool put into a field (the tools bar) replaces its text: offered back as a link's replacement is.
    replacers.set(form, function (change) {
      var before = { fields: snapshot(form), saved: Date.now(), submitted: draft.submitted };
      change();
      offerUndo(before, true);
      save();
    });
    // A share link followed on its own page (only the fragment changes: no new page, no arrival).
    window.addEventListener("hashchange", function () {
      var reading = null;
      try { reading = sharedInput(); } catch (e) { reading = Promise.reject(e); }
      if (!reading) return;
      reading.then(function (values) {
        var before = { fields: snapshot(form), saved: Date.now(), submitted: draft.submitted, previous: draft.previous };
        var shown = fromLink(values, before);
        var result = resultOf(form);
        if (result) result.replaceChildren(); // the replaced text's result
        draft.submitted = null;
        save();
        replaying = true;
        try { submitAgain(form, shown.resubmit); } finally { replaying = false; }
      }, function () { say("The link's input could not be read."); });
    });

    // The tools of what the server sent are asked for at once (not after the kept draft is read): a page left
    // quickly (an example glanced at) still teaches them.
    if (!base.empty) lookIn(Array.prototype.map.call(form.querySelectorAll("textarea[name]"), read));
    // Arrival: a share link wins, then a kept draft (see baseOf), else what the server sent.
    var backup = null;
    try { backup = JSON.parse(localStorage.getItem(key) || "null"); localStorage.removeItem(key); } catch (e) { backup = null; }
    var shared = null;
    try { shared = sharedInput(); } catch (e) { say("The link's input could not be read."); }
    var arrival = shared
      ? Promise.all([shared, quietly(drafts.get(key)), quietly(drafts.get(entryKey)), rescue(backup, entry)])
        .then(function (found) {
          // What the page held before the link: this entry's own text (a reload), else the page's latest work.
          var own = found[2], mine = backup && backup.entry === entry ? backup : null;
          return fromLink(found[0], own ? newer(own, mine) : newer(found[1], backup));
        }, function () { say("The link's input could not be read."); return null; })
      : Promise.all([drafts.get(key), drafts.get(entryKey), rescue(backup, entry)]).then(function (found) {
        var stored = found[0], own = found[1];
        // This history entry's own draft first (Back, reload). A page the server filled (an example, a carried
        // item) shows what it was sent and offers the page's latest work back (Undo): on a new entry, and on one
        // come back to that was left before its first save (the latest draft is another entry's work, perhaps on
        // the same URL). A page that arrived empty starts from the page's latest work.
        var mine = backup && backup.entry === entry ? backup : null, latest = newer(stored, backup);
        var kept = own ? newer(own, mine) : base.empty ? latest : named.returning ? mine : null;
        var offered = kept || (base.empty ? null : latest);
        if (offered && !offered.fields && stored) drafts.remove(key).catch(function () { /* nothing kept */ });
        var restoring = kept && kept.fields && (base.empty || kept.base === base.hash);
        if (offered && offered.fields && !restoring) offerUndo(offered);
        if (!restoring) return null;
        var changed = apply(form, kept.fields);
        showNotes(form, kept.notes);
        if (kept.previous) offerUndo(kept.previous); // still on offer: this entry's text replaced it
        if (!changed) return null;
        say("Your input is back, kept in this browser since " + new Date(kept.saved).toLocaleTimeString() + ".");
        draft.submitted = kept.submitted;
        return { resubmit: kept.submitted };
      }).catch(function () { return null; });
    arrival.then(function (restored) {
      // What the page shows is the work now, kept even if nothing is typed (a carried item, an example).
      if (restored || !base.empty) save();
      // The tools of what the page shows are learnt; an empty schema field is filled in from them before a
      // restored result is asked for again (only then is the answer waited for).
      var filling = fillTool(form, say);
      return (wantsTool(form) ? filling : Promise.resolve(false)).then(function (filled) {
        if (filled) save();
        // A filled-in tool makes the result on screen stale (a carried item "needs a schema"): ask again.
        var again = restored && restored.resubmit !== null && restored.resubmit !== undefined ? restored.resubmit
          : filled ? firstSubmitter(form) : null;
        replaying = true; // the arrival asks for the result again: not the user's submission
        var asked = null;
        try { asked = again !== null ? submitAgain(form, again) : null; } finally { replaying = false; }
        return Promise.resolve(asked).catch(function () { /* the server is away: the page says nothing new */ })
          .then(function () { focusNext(form, filled || !base.empty); });
      });
    });
  }
  // A page that arrives partly filled (carried from the step before): focus the first empty field, the next
  // thing to do; one that arrives complete (``carried``: filled by the step before or from the kept tools) with
  // a result: the result's heading, what to read next. Not when the user is already somewhere.
  function focusNext(form, carried) {
    if (document.activeElement && document.activeElement !== document.body) return;
    // Fields folded away (a closed <details>: the Schema page's referenced schemas) are optional.
    var areas = Array.prototype.filter.call(form.querySelectorAll("textarea[name]"), function (a) {
      return !a.closest("details:not([open])");
    });
    var filled = areas.filter(function (a) { return read(a).trim(); });
    var empty = areas.filter(function (a) { return !read(a).trim(); });
    if (!filled.length) return;
    if (empty.length) {
      var handle = editorOf(empty[0]);
      (handle && handle.editing ? handle : empty[0]).focus();
      return;
    }
    var target = carried && firstSubmitter(form).target;
    var result = target && document.querySelector(target);
    var heading = result && (result.querySelector("h2, h3") || result.firstElementChild);
    if (!heading) return;
    if (!heading.hasAttribute("tabindex")) heading.setAttribute("tabindex", "-1");
    heading.focus();
  }
  var replaying = false; // an arrival's submission again is under way (htmx:beforeRequest fires within it)
  // Where the form's result is shown (its hx-target).
  function resultOf(form) {
    var target = form.getAttribute("hx-target") || (form.querySelector("[hx-target]") || form).getAttribute("hx-target");
    return target ? document.querySelector(target) : null;
  }
  // The notes that a field's text is not the file uploaded into it (templates/_macros.html not_the_file) are kept
  // with the draft, as their text and links ([tag, text, attributes]), and shown again with the text they are
  // about; static/app.js hides them once it is edited (told by "inspector:note" what text that is).
  var NOTE_TAGS = ["STRONG", "A", "CODE"];
  function notesOf(form) {
    return Array.prototype.map.call(form.querySelectorAll("[data-replaced-for]:not([hidden])"), function (note) {
      return { field: note.dataset.replacedFor, parts: Array.prototype.map.call(note.childNodes, function (node) {
        if (node.nodeType !== 1) return ["", node.textContent, {}];
        var attributes = {};
        Array.prototype.forEach.call(node.attributes, function (a) { attributes[a.name] = a.value; });
        return [node.tagName, node.textContent, attributes];
      }) };
    });
  }
  function showNotes(form, notes) {
    (notes || []).forEach(function (kept) {
      var note = Array.prototype.find.call(form.querySelectorAll("[data-replaced-for]"), function (el) {
        return el.dataset.replacedFor === kept.field;
      });
      if (!note || !Array.isArray(kept.parts)) return;
      note.replaceChildren.apply(note, kept.parts.map(function (part) {
        if (NOTE_TAGS.indexOf(part[0]) < 0) return document.createTextNode(String(part[1]));
        var el = document.createElement(part[0]);
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
  function quietly(promise) { return promise.catch(function () { return null; }); } // storage off: nothing kept
  function newer(a, b) { return !a ? b : !b ? a : (b.saved > a.saved ? b : a); }
  // Another history entry's backup (written as it was left, its IndexedDB write perhaps cut off): it becomes that
  // entry's own draft, unless a newer one is there, so Back to it still finds its text. Done before the arrival
  // goes on, so it is written once the page shows its text.
  function rescue(backup, entry) {
    if (!backup || !backup.fields || !backup.entry || backup.entry === entry) return null;
    var where = "entry:" + backup.entry + ":" + location.pathname;
    return drafts.get(where).then(function (found) {
      if (!found || backup.saved > found.saved) return drafts.put(where, backup);
    }).catch(function () { /* storage off: the page's draft still holds it */ });
  }
  // A shared input is shown with the page's first action (the primary button, else the form's own submit).
  function firstSubmitter(form) {
    return describe(form, form.querySelector("[hx-post].primary"));
  }

  document.addEventListener("click", function (event) {
    if (!event.target.closest || !event.target.closest(".tools-bar button.tools-forget")) return;
    forgetTools();
  });
  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest(".tools-bar button[data-tool]");
    if (!button) return;
    var area = document.getElementById(button.parentNode.dataset.for);
    if (area) useTool(area, button.dataset.tool);
  });

  function start() {
    offerAll();
    document.querySelectorAll("form[data-draft]").forEach(setup);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
