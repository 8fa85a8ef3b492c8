// The snapshot of a document: its identity, URL, title, visible text and interactive elements
// with their refs; `limits` = {parseWait (ms), max (elements), text (characters)}. What each
// part is for is said beside the Rust code that reads it (observe.rs).
async (limits) => {
  if (document.readyState === "loading") {
    await new Promise((done) => {
      document.addEventListener("DOMContentLoaded", done, { once: true });
      setTimeout(done, limits.parseWait);
    });
  }
  if (!document.__navguard) {
    const id = Array.from(crypto.getRandomValues(new Uint8Array(4)), (b) => (b % 36).toString(36)).join("")
      + Date.now().toString(36).slice(-3);
    Object.defineProperty(document, "__navguard", { value: { id, next: 1, refs: new Map(), of: new WeakMap() } });
  }
  const g = document.__navguard;
  const refOf = (el) => {
    let n = g.of.get(el);
    if (!n) { n = g.next++; g.of.set(el, n); g.refs.set(n, new WeakRef(el)); }
    return g.id + "." + n;
  };
  const squash = (s) => (s || "").replace(/\s+/g, " ").trim();
  const short = (s) => squash(s).slice(0, 80);
  const roleOf = (el) => {
    const explicit = el.getAttribute("role");
    if (explicit) return explicit;
    const tag = el.tagName.toLowerCase(), type = (el.getAttribute("type") || "").toLowerCase();
    if (tag === "a") return "link";
    if (tag === "button") return "button";
    if (tag === "select") return "combobox";
    if (tag === "textarea") return "textbox";
    if (tag === "input") {
      if (["submit", "button", "reset", "image"].includes(type)) return "button";
      if (type === "checkbox" || type === "radio") return type;
      return "textbox";
    }
    if (el.isContentEditable) return "textbox";
    return "generic";
  };
  const labelled = (el) => {
    const by = el.getAttribute("aria-labelledby");
    const root = el.getRootNode();
    const byId = (id) => (root.getElementById ? root.getElementById(id) : null) || document.getElementById(id);
    if (by) return by.split(/\s+/).map((id) => byId(id)?.innerText || "").join(" ");
    if (el.labels && el.labels.length) return Array.from(el.labels, (l) => l.innerText).join(" ");
    return "";
  };
  const nameOf = (el) => short(el.getAttribute("aria-label") || labelled(el) || el.innerText
    || (["submit", "button", "reset"].includes(el.type) ? el.value : "") || el.getAttribute("placeholder")
    || el.getAttribute("title") || el.getAttribute("name") || "");
  const isField = (el) => ["input", "textarea", "select"].includes(el.tagName.toLowerCase())
    && !["submit", "button", "reset", "image"].includes((el.type || "").toLowerCase());
  // What an agent acts on: links, buttons, fields, editors, elements draggable or clickable, and
  // the widgets that say their role (a combobox's options, a drop zone named as a region).
  const pick = "a[href], button, input:not([type=hidden]), select, textarea, [onclick], [draggable=true], "
    + "[contenteditable=''], [contenteditable=true], [role=button], [role=link], [role=checkbox], [role=radio], "
    + "[role=switch], [role=tab], [role=menuitem], [role=option], [role=combobox], [role=listbox], "
    + "[role=textbox], [role=slider], [role=region][aria-label]";
  // In tree order, into shadow roots at any depth: the open ones, and the closed ones the page
  // watch kept as they were attached.
  const closedRoot = window[Symbol.for("navguard.closedRoot")];
  const shadowOf = (el) => el.shadowRoot || (typeof closedRoot === "function" ? closedRoot(el) : null);
  const listed = [];
  const walk = (root) => {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT);
    for (let el = walker.nextNode(); el && listed.length < limits.max; el = walker.nextNode()) {
      if (el.matches(pick)) listed.push(el);
      const inner = shadowOf(el);
      if (inner) walk(inner);
    }
  };
  walk(document);
  const selector = (el, i) => el.id ? "#" + CSS.escape(el.id) : `${el.tagName.toLowerCase()}:nth-of-type(${i + 1})`;
  const elements = listed.map((el) => {
    const out = {
      ref: refOf(el),
      selector: selector(el, Array.from(el.parentNode.children).filter(c => c.tagName === el.tagName).indexOf(el)),
      tag: el.tagName.toLowerCase(),
      role: roleOf(el),
      name: nameOf(el),
      // A field's text is its value, given once, as `value`: never a second copy of a password.
      text: isField(el) ? "" : short(el.innerText || el.value || el.getAttribute("aria-label") || ""),
    };
    if (isField(el)) out.value = (el.type || "").toLowerCase() === "password" ? "[redacted]" : short(el.value);
    if (el.form) out.form = { method: (el.form.method || "get").toLowerCase(), action: el.form.action };
    return out;
  });
  const text = squash(document.body ? document.body.innerText : "").slice(0, limits.text);
  // Whether the page has frames at all (window.length counts those in shadow roots too): a page
  // without any is read in this one script, with no frame tree to fetch.
  const child_frames = window.length + document.querySelectorAll("iframe, frame, object, embed").length;
  // Whether the page began to leave since it was last asked, by its own word (the page watch
  // the adapter installs): read last, so a navigation that began while it was read is told.
  const tell = window[Symbol.for("navguard.leaving")];
  const leaving = typeof tell === "function" ? tell() : null;
  return { document: g.id, url: location.href, title: document.title, text, elements, child_frames, leaving };
}
