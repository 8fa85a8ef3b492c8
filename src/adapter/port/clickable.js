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
  // press_landed.js once what the click started is over). A page that moves the target just as
  // it is pressed (a banner pushing it down) puts something else under the pointer. The press
  // is judged twice, each time once: as it goes down (pointerdown: on the target, or on what
  // took its place) and as it comes up (pointerup); the mouse events and the click follow those
  // verdicts. A press that went down elsewhere, or went down on the target and comes up on
  // another element because the target moved away (it is still in the page, shown, and no
  // longer under the pointer), is stopped from here on, its click included, and the miss kept
  // so that the click presses again. A press the target took and then hid or removed itself
  // for (an autocomplete's item), or that comes up on something covering the target where it
  // still is (a menu its own press opened), is the page's to take, and passes. Listeners the
  // page put on the window before this one still see a stopped press; the element it landed
  // on does not.
  const watchPress = (el) => {
    const press = { seen: false, down: null, up: null, missed: null, stop: null };
    // What the pointer is on, in the target's own tree (an event's own path hides a closed
    // shadow root's insides), as the browser found it for a pointer event: nothing of the
    // page runs between its hit test and the window's first capture listeners.
    const root = el.getRootNode();
    const under = (event) => (root.elementFromPoint ? root : document).elementFromPoint(event.clientX, event.clientY);
    const reaches = (hit) => hit !== null && (hit === el || el.contains(hit) || hit === holder ||
      (hit.tagName === "LABEL" && hit.control === el));
    const movedAway = (event) => {
      const box = el.getBoundingClientRect();
      const shown = el.isConnected && el.getClientRects().length > 0;
      const inside = event.clientX >= box.left && event.clientX < box.right &&
        event.clientY >= box.top && event.clientY < box.bottom;
      return shown && !inside;
    };
    const miss = (event) => {
      if (press.missed === null) press.missed = describe(under(event) || event.composedPath()[0]);
    };
    const judge = (event) => {
      if (!event.isTrusted) return;
      press.seen = true;
      if (event.type === "pointerdown" && press.down === null) {
        press.down = reaches(under(event));
        if (!press.down) miss(event);
      } else if (event.type === "pointerup" && press.up === null) {
        press.up = press.down === false ? false : reaches(under(event)) || !movedAway(event);
        if (!press.up) miss(event);
      }
      if (press.missed !== null) {
        event.preventDefault();
        event.stopImmediatePropagation();
      }
      // The press is over at its click, or as soon as it came up where it should: what
      // follows is the page's own doing.
      if (event.type === "click" || (event.type === "pointerup" && press.missed === null)) press.stop();
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
  // Any lookup ends the watch an earlier click left (its press may never have come to a click),
  // and its record: what a click reads is its own press's.
  if (document.__navguardPress) {
    document.__navguardPress.stop();
    document.__navguardPress = undefined;
  }
  const el = find();
  if (!el || typeof el === "string") return el;
  const why = whyNot(el);
  if (why !== null) return names.notInteractable + why;
  if (watch && el.tagName !== "OPTION" && el.tagName !== "OPTGROUP") watchPress(el);
  return el;
}
