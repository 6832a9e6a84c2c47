// The code editor of the pages: every <textarea data-editor> gets a CodeMirror 6 view beside it. The textarea
// stays the form field (the view writes its text back before anything reads the form), so the forms work the
// same with or without this file. Page scripts use window.InspectorEditor:
//   get(id) -> handle | null      handle: getValue(), setValue(text), select(line, column), setMarkers(list),
//                                         focus(), onChange(fn), editing (false: the plain textarea is used)
//   flush()                       writes every view's text back into its textarea
//   mount(root)                   mounts the textareas under root (done for the page and after each htmx swap)
// Lines and columns are 1-based; a column counts characters (code points), as the server does.
import { EditorSelection, EditorState, Prec } from "@codemirror/state";
import {
  EditorView, drawSelection, dropCursor, highlightActiveLine, highlightActiveLineGutter, highlightSpecialChars,
  keymap, lineNumbers, placeholder,
} from "@codemirror/view";
import { defaultKeymap, history, historyKeymap } from "@codemirror/commands";
import {
  HighlightStyle, bracketMatching, foldGutter, foldKeymap, indentOnInput, syntaxHighlighting,
} from "@codemirror/language";
import { json } from "@codemirror/lang-json";
import { lintGutter, setDiagnostics } from "@codemirror/lint";
import { highlightSelectionMatches, searchKeymap } from "@codemirror/search";
import { tags } from "@lezer/highlight";

// Above this many characters the page uses the plain textarea. Measured with benchmarks/bench_editor.py
// (Chromium): with 15 MB the view opens in 0.4 s and no key takes over 16 ms; with 30 MB 0.8 s and the worst
// key 140 ms (the plain textarea: 0.7 s and 4 s a key). Past that, memory for the document and its syntax
// tree grows beyond what a tab should hold; the server refuses more than 20 MB anyway.
// A page (or a test) may set window.InspectorEditorConfig = {maxChars} before this file runs.
const EDITOR_MAX_CHARS = (window.InspectorEditorConfig && window.InspectorEditorConfig.maxChars) || 32 * 1024 * 1024;
// Below this the textarea is updated on every change; above, only before something reads the form (a submit,
// Ctrl+Enter, leaving the page): writing megabytes into a textarea makes the browser lay all of it out again.
const EAGER_SYNC_CHARS = 256 * 1024;

const highlight = HighlightStyle.define([
  { tag: tags.propertyName, color: "var(--hl-key)" },
  { tag: tags.string, color: "var(--hl-string)" },
  { tag: tags.number, color: "var(--hl-number)" },
  { tag: [tags.bool, tags.null], color: "var(--hl-atom)" },
  { tag: [tags.brace, tags.squareBracket, tags.separator, tags.punctuation], color: "var(--muted)" },
  { tag: tags.invalid, color: "var(--bad)" },
]);

// Styles go into the editor's shadow root as a constructed style sheet: a strict Content-Security-Policy
// (style-src 'self') refuses the <style> element CodeMirror would add to the document.
const theme = EditorView.theme({
  "&": {
    background: "var(--panel)", color: "var(--fg)", border: "1px solid var(--line)", borderRadius: "6px",
    fontSize: "13px", maxHeight: "70vh",
  },
  "&.cm-focused": { outline: "2px solid var(--accent)", outlineOffset: "-1px" },
  ".cm-scroller": { fontFamily: "var(--mono)", overflow: "auto", lineHeight: "1.45" },
  ".cm-content, .cm-gutter": { minHeight: "var(--editor-min-height, 14rem)" },
  ".cm-content": { caretColor: "var(--fg)" },
  ".cm-cursor": { borderLeftColor: "var(--fg)" },
  ".cm-gutters": { background: "var(--code)", color: "var(--muted)", borderRight: "1px solid var(--line)" },
  ".cm-activeLine": { background: "var(--hl-active)" },
  ".cm-activeLineGutter": { background: "var(--hl-active)" },
  "&.cm-focused .cm-selectionBackground, .cm-selectionBackground, ::selection": { background: "var(--hl-selection)" },
  "&.cm-focused .cm-matchingBracket": { background: "var(--hl-match)", outline: "1px solid var(--accent)" },
  ".cm-placeholder": { color: "var(--muted)" },
  ".cm-tooltip": { background: "var(--panel)", color: "var(--fg)", border: "1px solid var(--line)" },
  ".cm-panels": { background: "var(--code)", color: "var(--fg)" },
  ".cm-lintRange-error": { textDecoration: "underline wavy var(--bad)", backgroundImage: "none" },
  ".cm-lintRange-warning": { textDecoration: "underline wavy var(--warn)", backgroundImage: "none" },
  ".cm-diagnostic": { fontFamily: "system-ui, sans-serif", whiteSpace: "pre-wrap" },
});

// Typing over a selection is left to the browser's contenteditable editing, and Chromium then carries the deleted
// text's colour over to the typed text: it wraps it in <span style="color: rgb(…)"> (its "typing style"), which
// the page's Content-Security-Policy refuses (style-src-attr, one console error per Ctrl+A and key). The view
// replaces a selection itself instead, as its own input path would (input handlers, the "input.type" event).
// The selection is the state's (inside a shadow root Chromium's getTargetRanges() is empty), taken only when the
// browser's selection is not collapsed either, so a stale state selection is never typed over.
const typeOverSelection = EditorView.domEventHandlers({
  beforeinput(event, view) {
    if (event.inputType !== "insertText" || event.isComposing || !event.data) return false;
    const selection = view.state.selection;
    if (selection.ranges.every((range) => range.empty)) return false;
    const dom = typeof view.root.getSelection === "function" ? view.root.getSelection() : document.getSelection();
    if (!dom || dom.isCollapsed) return false;
    event.preventDefault();
    const text = event.data, main = selection.main;
    const typed = () => view.state.update(view.state.replaceSelection(text),
                                          { scrollIntoView: true, userEvent: "input.type" });
    if (!view.state.facet(EditorView.inputHandler).some((handler) => handler(view, main.from, main.to, text, typed))) {
      view.dispatch(typed());
    }
    return true;
  },
});

const editors = new Map();

// UTF-16 units spanned by ``count`` code points of ``text`` from ``start``, stopping at the end of the line.
function codePointsToUnits(text, start, count) {
  let i = start;
  for (let c = 0; c < count && i < text.length && text.charCodeAt(i) !== 10; c++) {
    const code = text.charCodeAt(i);
    i += code >= 0xd800 && code <= 0xdbff ? 2 : 1;
  }
  return i - start;
}

function sizeText(chars) { return chars.toLocaleString("en") + " characters"; }

function labelOf(area) {
  if (area.getAttribute("aria-label")) return area.getAttribute("aria-label");
  const label = area.labels && area.labels[0];
  return label ? label.textContent.replace(/\s+/g, " ").trim() : area.name;
}

class Handle {
  constructor(area) {
    this.area = area;
    this.view = null;
    this.dirty = false;
    this.listeners = [];
    this.note = null;
    area.addEventListener("input", () => {
      if (this.view) {
        if (area.value !== this.view.state.doc.toString()) this.load(area.value);
      } else {
        this.remount();
      }
    });
  }

  get editing() { return this.view !== null; }

  getValue() { return this.view ? this.view.state.doc.toString() : this.area.value; }

  setValue(text) {
    if (this.view) {
      this.view.dispatch({ changes: { from: 0, to: this.view.state.doc.length, insert: text } });
      this.flush();
    } else {
      this.area.value = text;
      this.remount();
      this.changed();
    }
  }

  // The plain textarea of a text that was too large, now back under the limit (cleared, cut down): the view
  // comes back and the note goes, keeping the focus where the user was.
  remount() {
    if (this.view || this.area.value.length > EDITOR_MAX_CHARS) return;
    const focused = document.activeElement === this.area;
    if (this.note) { this.note.remove(); this.note = null; }
    this.mountView();
    if (focused) this.view.focus();
  }

  flush() {
    if (this.view && this.dirty) {
      const text = this.view.state.doc.toString();
      this.area.classList.toggle("big", text.length > EAGER_SYNC_CHARS);
      this.area.value = text;
      this.dirty = false;
    }
  }

  focus() { (this.view || this.area).focus(); }

  onChange(fn) { this.listeners.push(fn); }

  changed() { for (const fn of this.listeners) fn(this); }

  /** Select the character at (line, column) and scroll it into view; a column past the line's end is its end. */
  select(line, column) {
    if (!this.view) return; // the plain textarea: static/app.js selects there
    const [from, to] = this.range(line, column);
    this.view.dispatch({
      selection: EditorSelection.range(from, to),
      effects: EditorView.scrollIntoView(from, { y: "center" }),
    });
    this.view.focus();
  }

  // [from, to) of the character at (line, column) in the view's document.
  range(line, column) {
    const doc = this.view.state.doc;
    if (line > doc.lines) return [doc.length, doc.length];
    const l = doc.line(Math.max(1, line));
    const from = l.from + codePointsToUnits(l.text, 0, Math.max(1, column) - 1);
    return [from, Math.min(from + 1, l.to)];
  }

  /** Show the server's diagnostics: list of {line, column, message, severity ("error" | "warning" | "info")}. */
  setMarkers(list) {
    if (!this.view) return;
    const diagnostics = list.map((m) => {
      const [from, to] = this.range(m.line, m.column);
      return { from, to, severity: m.severity || "error", message: m.message || "here" };
    });
    this.view.dispatch(setDiagnostics(this.view.state, diagnostics));
  }

  mountView() {
    const area = this.area;
    const host = document.createElement("div");
    host.className = "editor-host";
    host.dataset.editorFor = area.id;
    area.after(host);
    const shadow = host.attachShadow({ mode: "open" });
    const handle = this;
    this.view = new EditorView({
      parent: shadow,
      root: shadow,
      state: EditorState.create({
        doc: area.value,
        extensions: [
          // Ctrl/Cmd+Enter is the page's "submit" (its script listens on the document); keep CodeMirror from
          // inserting a line for it.
          Prec.highest(keymap.of([{ key: "Mod-Enter", run: () => true, shift: () => true }])),
          lineNumbers(), foldGutter(), lintGutter(), highlightActiveLineGutter(), highlightSpecialChars(),
          history(), drawSelection(), dropCursor(), indentOnInput(), bracketMatching(), highlightActiveLine(),
          highlightSelectionMatches(), syntaxHighlighting(highlight), json(), theme, typeOverSelection,
          keymap.of([...defaultKeymap, ...historyKeymap, ...foldKeymap, ...searchKeymap]),
          placeholder(area.placeholder || ""),
          // tabindex: the text is the scrolling region's focusable content for assistive tools too (a
          // contenteditable alone is not counted as focusable by them).
          EditorView.contentAttributes.of({ "aria-label": labelOf(area), spellcheck: "false", tabindex: "0" }),
          EditorState.transactionFilter.of((tr) => handle.tooLarge(tr) ? [] : tr),
          EditorView.updateListener.of((update) => {
            if (!update.docChanged) return;
            handle.dirty = true;
            if (update.state.doc.length <= EAGER_SYNC_CHARS) handle.flush();
            handle.changed();
          }),
        ],
      }),
    });
    // The textarea stays in the form (and scripts may still write to it), out of sight and out of the tab order.
    area.classList.add("editor-source");
    area.classList.toggle("big", area.value.length > EAGER_SYNC_CHARS);
    area.setAttribute("aria-hidden", "true");
    area.tabIndex = -1;
  }

  // Replace the view's text with ``text`` (written to the textarea from outside), or fall back when too large.
  load(text) {
    if (text.length > EDITOR_MAX_CHARS) {
      this.fallBack(text.length);
      this.changed();
      return;
    }
    this.view.dispatch({ changes: { from: 0, to: this.view.state.doc.length, insert: text } });
    this.dirty = false;
  }

  // A change that would grow the text above the limit: keep the text, give up the view.
  tooLarge(tr) {
    if (!tr.docChanged || tr.newDoc.length <= EDITOR_MAX_CHARS) return false;
    const text = tr.newDoc.toString();
    queueMicrotask(() => {
      this.area.value = text;
      this.fallBack(text.length);
      this.changed();
    });
    return true;
  }

  fallBack(chars) {
    if (this.view) {
      const host = this.view.dom.getRootNode().host;
      this.view.destroy();
      this.view = null;
      host.remove();
      this.area.classList.remove("editor-source", "big");
      this.area.removeAttribute("aria-hidden");
      this.area.removeAttribute("tabindex");
    }
    this.showNote(chars);
  }

  showNote(chars) {
    if (!this.note) {
      this.note = document.createElement("p");
      this.note.className = "editor-note muted";
      this.note.setAttribute("role", "note");
      this.area.after(this.note);
    }
    this.note.textContent = "This text has " + sizeText(chars) + ": above " + sizeText(EDITOR_MAX_CHARS) +
      " the editor would stall, so this is a plain text box (no line numbers, highlighting or markers).";
  }
}

function create(area) {
  const handle = new Handle(area);
  if (area.value.length > EDITOR_MAX_CHARS) handle.showNote(area.value.length);
  else handle.mountView();
  return handle;
}

/** Mount an editor on every textarea[data-editor] under ``root``; a textarea replaced by an htmx swap (same id)
 *  gets the existing view back, holding the new textarea's text. */
export function mount(root) {
  const scope = root && root.querySelectorAll ? root : document;
  const found = [];
  if (scope.matches && scope.matches("textarea[data-editor]")) found.push(scope);
  found.push(...scope.querySelectorAll("textarea[data-editor]"));
  for (const area of found) {
    const old = editors.get(area.id);
    if (old && old.area === area) continue;
    if (old) {
      // htmx put a new textarea in place of the old one: drop the old view, start again on the new text.
      if (old.view) { old.view.dom.getRootNode().host.remove(); old.view.destroy(); }
      if (old.note) old.note.remove();
      const handle = create(area);
      handle.listeners = old.listeners;
      editors.set(area.id, handle);
      handle.changed();
    } else {
      editors.set(area.id, create(area));
    }
  }
}

export function get(id) { return editors.get(id) || null; }

export function flush() { for (const handle of editors.values()) handle.flush(); }

// Before anything reads a form: the capture phase on the document runs before htmx's and the page's handlers.
for (const type of ["submit", "htmx:confirm", "htmx:configRequest", "formdata", "pagehide"]) {
  document.addEventListener(type, flush, true);
}
window.addEventListener("pagehide", flush);
document.addEventListener("visibilitychange", () => { if (document.visibilityState === "hidden") flush(); });
document.addEventListener("keydown", (event) => {
  if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) flush();
}, true);
document.addEventListener("click", (event) => {
  const target = event.target;
  if (target.closest && target.closest("button, input[type=submit], [hx-post], [hx-get], a[href]")) flush();
  // A <label> around or for a textarea with a view: a click on it goes to the view, not the hidden textarea.
  const label = target.closest && target.closest("label");
  const handle = label && label.control && editors.get(label.control.id);
  if (!handle || !handle.view) return;
  const inner = event.composedPath()[0];
  if (handle.view.dom.contains(inner)) {
    // Inside the view: only its own controls (the search panel) keep the click's default action.
    if (!(inner.closest && inner.closest("input, button, select, label"))) event.preventDefault();
  } else {
    event.preventDefault();
    handle.view.focus();
  }
}, true);

mount(document);
document.addEventListener("htmx:load", (event) => mount(event.detail.elt));
window.InspectorEditor = { get, flush, mount, maxChars: EDITOR_MAX_CHARS };
