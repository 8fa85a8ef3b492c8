// The check of an expectation: `want` maps each key (url, title, text, present, absent,
// visible) to what must hold; resolves {ok, misses} as soon as everything holds (a
// MutationObserver re-checks on every change of the document), or when `ms` have passed.
async (want, ms) => {
  const visible = (el) => !!el && el.getClientRects().length > 0 && getComputedStyle(el).visibility !== "hidden";
  const misses = () => {
    const out = [];
    for (const [key, expected] of Object.entries(want)) {
      if (key === "url" && !location.href.startsWith(expected)) out.push({ key, expected, found: location.href });
      if (key === "title" && document.title !== expected) out.push({ key, expected, found: document.title });
      if (key === "text" && !(document.body?.innerText ?? "").includes(expected)) out.push({ key, expected, found: "" });
      if (key === "present" && !document.querySelector(expected)) out.push({ key, expected, found: "" });
      if (key === "absent" && document.querySelector(expected)) out.push({ key, expected, found: "" });
      if (key === "visible" && !visible(document.querySelector(expected))) out.push({ key, expected, found: "" });
    }
    return out;
  };
  if (document.readyState === "loading") {
    await new Promise((done) => document.addEventListener("DOMContentLoaded", done, { once: true }));
  }
  const now = misses();
  if (now.length === 0) return { ok: true, misses: [] };
  return await new Promise((resolve) => {
    const finish = () => { observer.disconnect(); const m = misses(); resolve({ ok: m.length === 0, misses: m }); };
    const observer = new MutationObserver(() => { if (misses().length === 0) finish(); });
    observer.observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
    setTimeout(finish, ms);
  });
}
