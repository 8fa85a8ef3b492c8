// What an element holds now, for `extract` and for the answers of the tools that change a
// control: its tag, its text (whitespace folded, at most caps.text characters), a field's
// value (a password's never: "[redacted]"), whether a checkbox or radio is checked, a select's
// options with the chosen ones marked, a link's address, whether it is disabled. The element
// is found as a click finds it (findElement): null when a selector matches nothing, the
// staleness's name when a ref's document or element is gone. With `want` ({text, whole}), it
// also says whether the field holds that text (`holds`: the whole of it, or among what it
// holds), compared here so that a password's value is compared and never sent back.
(target, names, caps, want) => {
  const el = findElement(target, names);
  if (!el || typeof el === "string") return el;
  const fold = (s) => (s || "").replace(/\s+/g, " ").trim();
  const tag = el.tagName.toLowerCase();
  const type = (el.getAttribute("type") || "").toLowerCase();
  const out = { tag };
  const text = fold(el.innerText === undefined ? el.textContent : el.innerText);
  if (text) out.text = text.slice(0, caps.text);
  if (tag === "input") out.type = type || "text";
  if (tag === "select") {
    out.options = Array.from(el.options, (o) => ({ value: o.value, label: fold(o.label || o.text), selected: o.selected }));
    out.value = el.value;
  } else if (tag === "input" && (type === "checkbox" || type === "radio")) {
    out.checked = el.checked;
    out.value = el.value;
  } else if (tag === "input" || tag === "textarea") {
    out.value = type === "password" ? "[redacted]" : el.value.slice(0, caps.text);
  } else if (el.isContentEditable) {
    out.value = fold(el.innerText).slice(0, caps.text);
  }
  if (el.getAttribute("role") === "combobox" || el.getAttribute("aria-expanded") !== null) {
    out.expanded = el.getAttribute("aria-expanded") === "true";
  }
  if (el.getAttribute("aria-selected") !== null) out.selected = el.getAttribute("aria-selected") === "true";
  if (el.getAttribute("aria-checked") !== null) out.checked = el.getAttribute("aria-checked") === "true";
  if (tag === "a" && el.href) out.href = el.href;
  if (el.disabled || el.getAttribute("aria-disabled") === "true") out.disabled = true;
  if (want) {
    const editor = el.isContentEditable;
    const held = editor ? fold(el.innerText) : String(el.value ?? "");
    const wanted = editor ? fold(want.text) : want.text;
    out.holds = want.whole ? held === wanted : held.includes(wanted);
  }
  return out;
}
