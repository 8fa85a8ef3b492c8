// `select_option`'s first step. On a native <select>: it is focused, as a person opening it
// focuses it (a page that loads its options then gets to), the options asked for (each by its
// value or its label) are waited for at most `wait` ms (none at 0: the tool opens the control
// with the pointer first when they are not there), then chosen, and the control sends the
// `input` and `change` events a person's choice sends; the answer is {native: true}, or
// {missing, options} naming the values no option has and the options there are. Another
// control with the role combobox or listbox answers {aria, expanded}: it is opened and its
// option clicked with the pointer (pick_option.js). Anything else answers {notSelect}; a
// disabled or hidden select {notInteractable}; a single select asked for more than one
// option {tooMany}. The element is found as a click finds it (findElement): null when a
// selector matches nothing, the staleness's name when a ref's document or element is gone.
async (target, names, values, wait) => {
  const el = findElement(target, names);
  if (!el || typeof el === "string") return el;
  const fold = (s) => (s || "").replace(/\s+/g, " ").trim();
  const role = el.getAttribute("role");
  if (el.tagName !== "SELECT") {
    if (role === "combobox" || role === "listbox" || el.getAttribute("aria-haspopup") === "listbox") {
      return { aria: role || "combobox", expanded: el.getAttribute("aria-expanded") === "true" };
    }
    return { notSelect: el.tagName.toLowerCase() + (role ? " with the role " + role : "") };
  }
  if (el.disabled) return { notInteractable: "it is disabled" };
  const style = getComputedStyle(el);
  if (style.visibility === "hidden" || style.display === "none") return { notInteractable: "it is hidden" };
  if (!el.multiple && values.length > 1) return { tooMany: true };
  const matches = (o, v) => o.value === v || fold(o.label || o.text) === fold(v);
  const missing = () => values.filter((v) => !Array.from(el.options).some((o) => matches(o, v)));
  el.focus();
  if (missing().length > 0 && wait > 0) {
    await new Promise((done) => {
      let timer = null;
      const watch = new MutationObserver(() => {
        if (missing().length === 0) { watch.disconnect(); clearTimeout(timer); done(); }
      });
      watch.observe(el, { childList: true, subtree: true, characterData: true, attributes: true });
      timer = setTimeout(() => { watch.disconnect(); done(); }, wait);
    });
  }
  const gone = missing();
  if (gone.length > 0) return { missing: gone, options: Array.from(el.options, (o) => fold(o.label || o.text)) };
  if (el.multiple) {
    for (const o of el.options) o.selected = values.some((v) => matches(o, v));
  } else {
    el.selectedIndex = Array.from(el.options).findIndex((o) => matches(o, values[0]));
  }
  el.dispatchEvent(new Event("input", { bubbles: true, composed: true }));
  el.dispatchEvent(new Event("change", { bubbles: true }));
  return { native: true };
}
