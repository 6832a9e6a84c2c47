// A form's result asked for again without the user: on arrival (a restored draft, a share link), after Undo and
// after a kept tool filled in a field. What showed the result is kept with the draft as a submission:
// {post: its URL, target: "#id" of the result, values: what the submitter adds to the form (a button's
// name=value: the pager's page, Format's action)}; null: nothing was submitted. It is asked for again without
// touching a control (clicking a checkbox would toggle it).
// Uses the global window.htmx (static/htmx.min.js): htmx.ajax, and the detail of its htmx:beforeRequest event.

// The submission an htmx:beforeRequest ``detail`` of ``form`` makes.
export function submission(form, detail) {
  const elt = detail.elt, values = Object.assign({}, detail.etc && detail.etc.values); // a submission again
  if (elt.tagName === "BUTTON" && elt.name) values[elt.name] = elt.value;
  // Controls of the form outside it (form="…", in the result): absent on arrival, so kept here.
  Array.prototype.forEach.call(form.elements, function (el) {
    if (form.contains(el) || !el.name || el === elt || el.type !== "checkbox") return;
    if (el.checked) values[el.name] = el.value || "on";
  });
  const target = detail.target && detail.target.id ? "#" + detail.target.id : null;
  return { post: detail.requestConfig ? detail.requestConfig.path : elt.getAttribute("hx-post"), target: target,
           values: values };
}

// Makes ``submitted`` again; answers htmx's promise of it (undefined when the form is submitted as it is).
export function submitAgain(form, submitted) {
  if (typeof submitted === "number") { // a draft kept by an older version of these scripts: its index
    const elt = submitted >= 0 && form.querySelectorAll("[hx-post]")[submitted];
    submitted = elt && elt.tagName === "BUTTON" ? describe(form, elt) : describe(form, null);
  }
  if (!submitted || !submitted.post || !window.htmx) { form.requestSubmit(); return; }
  const options = { source: form, values: submitted.values || {} };
  const target = submitted.target && document.querySelector(submitted.target);
  if (target) options.target = target;
  return window.htmx.ajax("POST", submitted.post, options);
}

// The submission a click on ``elt`` (null: the form's own hx-post) would make.
function describe(form, elt) {
  const source = elt || form, values = {};
  if (elt && elt.name) values[elt.name] = elt.value;
  const holder = source.closest("[hx-target]");
  return { post: source.getAttribute("hx-post") || form.getAttribute("hx-post"), values: values,
           target: holder ? holder.getAttribute("hx-target") : null };
}

// A shared input is shown with the page's first action (the primary button, else the form's own submit).
export function firstSubmitter(form) {
  return describe(form, form.querySelector("[hx-post].primary"));
}

// Where the form's result is shown (its hx-target).
export function resultOf(form) {
  const target = form.getAttribute("hx-target") ||
    (form.querySelector("[hx-target]") || form).getAttribute("hx-target");
  return target ? document.querySelector(target) : null;
}

// An arrival's submission again is under way (htmx:beforeRequest fires within it): not the user's submission,
// so it teaches no forgotten tool again (static/state/tools.js).
let replaying = false;
export function isReplaying() { return replaying; }
export function replay(form, submitted) {
  replaying = true;
  try { return submitAgain(form, submitted); } finally { replaying = false; }
}
