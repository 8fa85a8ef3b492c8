// What came into view since `scroll` marked what was in view (scroll.js): the interactive
// elements (`pick`) now in view and not seen before, at most `max`, each as its tag and its
// label (aria-label, text or value, whitespace folded, at most 60 characters); and how many
// more there were. The ones told are marked seen in their turn.
(pick, max) => {
  const seen = (window[Symbol.for("navguard.seen")] ??= new WeakSet());
  const fold = (s) => (s || "").replace(/\s+/g, " ").trim().slice(0, 60);
  const fresh = [];
  for (const el of document.querySelectorAll(pick)) {
    const box = el.getBoundingClientRect();
    const shown = box.width > 0 && box.height > 0 && box.bottom > 0 && box.right > 0
      && box.top < innerHeight && box.left < innerWidth;
    if (!shown || seen.has(el)) continue;
    seen.add(el);
    fresh.push(el);
  }
  const label = (el) => fold(el.getAttribute("aria-label") || el.innerText || el.value || el.getAttribute("placeholder"));
  return {
    elements: fresh.slice(0, max).map((el) => ({ tag: el.tagName.toLowerCase(), label: label(el) })),
    more: Math.max(0, fresh.length - max),
  };
}
