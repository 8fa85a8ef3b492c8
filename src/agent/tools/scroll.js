// `scroll`: brings the element into view, or moves the page (or the container the element is)
// by about its visible height or to its end. Before it moves, the interactive elements
// (`pick`, a CSS selector) in view are marked as seen, so that what came into view can be told
// afterwards (cameIntoView). The element is found as a click finds it (findElement); the
// answer is null when a selector matches nothing, the staleness's name for a stale ref,
// {clipped} when the element cannot be brought into view (a container that clips it and does
// not scroll), else {moved, at, max}: whether anything scrolled, and where the page or the
// container now is, of how far it can go, in CSS pixels. It answers once the page has had
// two frames and a task after the move: what the page does because it was scrolled (an
// IntersectionObserver's callback that fetches more, a scroll listener) has begun by then,
// so the wait after the scroll sees its requests (a page that draws no frames is not waited
// for past half a second). It moves only after the page has drawn a frame as it stands: an
// IntersectionObserver learns that its element left the view only at a frame, so a feed that
// appended a batch since its last frame would otherwise never see its end leave and come back,
// and would not load the next batch (Firefox ESR, two scrolls to the end in a row).
async (target, names, how, pick) => {
  const frames = (n) => new Promise((done) => {
    setTimeout(done, 500);
    const next = (left) => (left === 0 ? setTimeout(done, 0) : requestAnimationFrame(() => next(left - 1)));
    next(n);
  });
  const reacted = () => frames(2);
  await frames(1);
  const seen = (window[Symbol.for("navguard.seen")] ??= new WeakSet());
  const inView = (el) => {
    const box = el.getBoundingClientRect();
    return box.width > 0 && box.height > 0 && box.bottom > 0 && box.right > 0
      && box.top < innerHeight && box.left < innerWidth;
  };
  for (const el of document.querySelectorAll(pick)) if (inView(el)) seen.add(el);
  const el = target === null ? null : findElement(target, names);
  if (target !== null && (!el || typeof el === "string")) return el;
  const page = document.scrollingElement || document.documentElement;
  const where = (box) => ({ at: Math.round(box.scrollTop), max: Math.round(box.scrollHeight - box.clientHeight) });
  if (how.by === undefined) {
    const before = [page.scrollTop, page.scrollLeft];
    el.scrollIntoView({ block: "center", inline: "center" });
    const box = el.getBoundingClientRect();
    const x = box.left + box.width / 2, y = box.top + box.height / 2;
    if (x < 0 || y < 0 || x >= innerWidth || y >= innerHeight) return { clipped: "it is outside the viewport and cannot be scrolled into it" };
    const hit = document.elementFromPoint(x, y);
    if (hit && hit !== el && !el.contains(hit) && !hit.contains(el)) {
      // Something else is where it is: a container that clips it (overflow: clip, hidden
      // without scrolling) hides it.
      let clip = el.parentElement;
      while (clip && getComputedStyle(clip).overflow === "visible") clip = clip.parentElement;
      if (clip && clip !== document.body && clip !== document.documentElement) {
        return { clipped: "it is clipped by its container " + clip.tagName.toLowerCase() + (clip.id ? "#" + clip.id : "") };
      }
    }
    const moved = before[0] !== page.scrollTop || before[1] !== page.scrollLeft;
    await reacted();
    return { moved, ...where(page) };
  }
  const box = el || page;
  const before = box.scrollTop;
  const step = how.by === "end" ? box.scrollHeight : Math.max(1, Math.round(box.clientHeight * 0.85));
  box.scrollBy({ top: how.direction === "up" ? -step : step, behavior: "instant" });
  const moved = box.scrollTop !== before;
  const at = where(box);
  await reacted();
  return { moved, ...at };
}
