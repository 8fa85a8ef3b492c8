// The element a click would go to, or why there is none: the first element a CSS selector
// matches ({css}), or the element a ref names ({document, index}), as findElement finds it:
// the document must be the one the ref was taken in (its snapshot registry,
// document.__navguard) and the element still in it, else the answer is the staleness's name.
// Then it is checked to be where a click lands: not disabled, not hidden, not covered at the point a click lands (the centre of its first
// box, as WebDriver's pointer takes it, scrolled into view first if it is outside). What covers
// it is named by its outermost element that does not hold the target (the overlay, not a
// paragraph inside it); a hit on the target, inside it, on an ancestor of it or on its own
// label reaches it. `names` holds the answers' words: {replaced, removed, notInteractable}.
(target, names) => {
  const find = () => findElement(target, names);
  const whyNot = (el) => {
    if (el.tagName === "OPTION" || el.tagName === "OPTGROUP") return null;
    const describe = (n) => {
      const id = n.id ? "#" + n.id : "";
      const label = (n.getAttribute("aria-label") || n.innerText || "").trim().split("\n")[0].slice(0, 40);
      return n.tagName.toLowerCase() + id + (label ? ' "' + label + '"' : "");
    };
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
    if (!hit || hit === el || el.contains(hit) || hit.contains(el)) return null;
    if (hit.tagName === "LABEL" && hit.control === el) return null;
    let cover = hit;
    while (cover.parentElement && cover.parentElement !== document.body && !cover.parentElement.contains(el)) {
      cover = cover.parentElement;
    }
    return "covered by " + describe(cover);
  };
  const el = find();
  if (!el || typeof el === "string") return el;
  const why = whyNot(el);
  return why === null ? el : names.notInteractable + why;
}
