// The options of an opened ARIA combobox or listbox that `values` name (each by its text, its
// value or data-value attribute, or its id), as refs the pointer can click: the list is the
// one the control names (aria-controls, aria-owns), the control itself when it is a listbox,
// else every listbox of the document. Options that come late are waited for, at most `wait`
// ms. The answer is {refs, labels} (in the order of `values`), or {missing, options} naming the values
// no shown option has and the options there are; findElement's answer when the control is
// gone. A ref is given as the snapshot gives one (refOf), so it is refused as stale once its
// element or document has gone.
async (target, names, values, wait) => {
  const box = findElement(target, names);
  if (!box || typeof box === "string") return box;
  const fold = (s) => (s || "").replace(/\s+/g, " ").trim();
  const root = box.getRootNode();
  const byId = (id) => (root.getElementById ? root.getElementById(id) : null) || document.getElementById(id);
  const lists = () => {
    const ids = [box.getAttribute("aria-controls"), box.getAttribute("aria-owns")].join(" ").split(/\s+/).filter(Boolean);
    const named = ids.map(byId).filter(Boolean);
    if (box.getAttribute("role") === "listbox") named.push(box);
    return named.length > 0 ? named : Array.from(document.querySelectorAll('[role="listbox"]'));
  };
  const shown = (el) => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
  const options = () => lists().flatMap((list) => Array.from(list.querySelectorAll('[role="option"]'))).filter(shown);
  const matches = (o, v) => fold(o.textContent) === fold(v) || o.getAttribute("value") === v
    || o.dataset.value === v || o.id === v;
  const found = () => values.map((v) => options().find((o) => matches(o, v)));
  if (found().some((o) => !o)) {
    await new Promise((done) => {
      let timer = null;
      const watch = new MutationObserver(() => {
        if (found().every(Boolean)) { watch.disconnect(); clearTimeout(timer); done(); }
      });
      watch.observe(document, { childList: true, subtree: true, characterData: true, attributes: true });
      timer = setTimeout(() => { watch.disconnect(); done(); }, wait);
    });
  }
  const now = found();
  if (now.some((o) => !o)) {
    return { missing: values.filter((_, i) => !now[i]), options: options().map((o) => fold(o.textContent)) };
  }
  return { refs: now.map(refOf), labels: now.map((o) => fold(o.textContent)) };
}
