// The element a click would go to, or why there is none: the first element a CSS selector
// matches ({css}), or the element a ref names ({document, index}), as findElement finds it:
// the document must be the one the ref was taken in (its snapshot registry,
// document.__navguard) and the element still in it, else the answer is the staleness's name.
// Then it is checked to be where a click lands: not disabled, not hidden, not covered at the point a click lands (the centre of its first
// box, as WebDriver's pointer takes it, scrolled into view first if it is outside). What covers
// it is named by its outermost element that does not hold the target (the overlay, not a
// paragraph inside it); a hit on the target, inside it, on an ancestor of it or on its own
// label reaches it. `names` holds the answers' words: {replaced, removed, notInteractable}.
// With `watch` (a click's own lookup), the press that follows is watched: see watchPress.
(target, names, watch) => {
  const find = () => findElement(target, names);
  const describe = (n) => {
    const id = n.id ? "#" + n.id : "";
    const label = (n.getAttribute("aria-label") || n.innerText || "").trim().split("\n")[0].slice(0, 40);
    return n.tagName.toLowerCase() + id + (label ? ' "' + label + '"' : "");
  };
  // The element the hit test found, when it is an ancestor that takes the target's presses.
  let holder = null;
  const whyNot = (el) => {
    if (el.tagName === "OPTION" || el.tagName === "OPTGROUP") return null;
    if (el.disabled) return "it is disabled";
    const style = getComputedStyle(el);
    if (style.visibility === "hidden" || style.display === "none") return "it is hidden";
    const centre = () => {
      const box = el.getClientRects()[0];
      return box ? [box.left + box.width / 2, box.top + box.height / 2] : null;
    };
    let point = centre();
    if (!point) return null;
    if (point[0] < 0 || point[1] < 0 || point[0] >= innerWidth || point[1] >= innerHeight) {
      el.scrollIntoView({ block: "center", inline: "center" });
      point = centre();
      if (!point) return null;
    }
    const root = el.getRootNode();
    const hit = (root.elementFromPoint ? root : document).elementFromPoint(point[0], point[1]);
    if (hit && hit !== el && hit.contains(el)) holder = hit;
    if (!hit || hit === el || el.contains(hit) || hit.contains(el)) return null;
    if (hit.tagName === "LABEL" && hit.control === el) return null;
    let cover = hit;
    while (cover.parentElement && cover.parentElement !== document.body && !cover.parentElement.contains(el)) {
      cover = cover.parentElement;
    }
    return "covered by " + describe(cover);
  };
  // The press that follows, watched where it lands (document.__navguardPress, read by
  // press_landed.js once the click's wait is over). A page that moves the target just as it is
  // pressed (a banner pushing it down) puts something else under the pointer: a press going
  // down on another element, or coming up outside the target's box on another, is stopped
  // before the page's handlers see it (and so is the click it would make), and the miss is kept
  // so that the click presses again. A press coming up on something that covers the target
  // where it still is (a menu its own press opened) is the page's to take, and passes.
  const watchPress = (el) => {
    const earlier = document.__navguardPress;
    if (earlier) earlier.stop();
    const press = { seen: false, missed: null, stop: null };
    // What the pointer is on, found as the browser found it for this very event (nothing of
    // the page's runs between its hit test and this first listener), in the target's own tree:
    // an event's own path hides a closed shadow root's insides.
    const root = el.getRootNode();
    const reaches = (event) => {
      const hit = (root.elementFromPoint ? root : document).elementFromPoint(event.clientX, event.clientY);
      return hit !== null && (hit === el || el.contains(hit) || hit === holder ||
        (hit.tagName === "LABEL" && hit.control === el));
    };
    const underPointer = (event) => {
      const box = el.getBoundingClientRect();
      return event.clientX >= box.left && event.clientX < box.right &&
        event.clientY >= box.top && event.clientY < box.bottom;
    };
    const judge = (event) => {
      if (!event.isTrusted) return;
      press.seen = true;
      const down = event.type === "pointerdown" || event.type === "mousedown";
      const missed = event.type === "click"
        ? press.missed !== null
        : !reaches(event) && (down || !underPointer(event));
      if (missed) {
        if (press.missed === null) {
          const on = (root.elementFromPoint ? root : document).elementFromPoint(event.clientX, event.clientY);
          press.missed = describe(on || event.composedPath()[0]);
        }
        event.preventDefault();
        event.stopImmediatePropagation();
      }
      if (event.type === "click") press.stop();
    };
    const kinds = ["pointerdown", "mousedown", "pointerup", "mouseup", "click"];
    // A watch whose press never comes (the input failed) stops by itself.
    const idle = setTimeout(() => press.stop(), 10000);
    press.stop = () => {
      clearTimeout(idle);
      kinds.forEach((kind) => window.removeEventListener(kind, judge, true));
    };
    kinds.forEach((kind) => window.addEventListener(kind, judge, true));
    document.__navguardPress = press;
  };
  const el = find();
  if (!el || typeof el === "string") return el;
  const why = whyNot(el);
  if (why !== null) return names.notInteractable + why;
  if (watch && el.tagName !== "OPTION" && el.tagName !== "OPTGROUP") watchPress(el);
  return el;
}
