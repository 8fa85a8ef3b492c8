// Marks the interactive elements (`pick`, a CSS selector) in view now as seen, so that what
// comes into view after an action can be told (came_into_view.js).
(pick) => {
  const seen = (window[Symbol.for("navguard.seen")] ??= new WeakSet());
  for (const el of document.querySelectorAll(pick)) {
    const box = el.getBoundingClientRect();
    const shown = box.width > 0 && box.height > 0 && box.bottom > 0 && box.right > 0
      && box.top < innerHeight && box.left < innerWidth;
    if (shown) seen.add(el);
  }
  return null;
}
