// The box of the element a screenshot takes, in the viewport's CSS pixels, once it is brought
// into view: null when a selector matches nothing, the staleness's name for a stale ref, and
// {empty: true} when it has no box (hidden, or no size).
(target, names) => {
  const el = findElement(target, names);
  if (!el || typeof el === "string") return el;
  el.scrollIntoView({ block: "center", inline: "center" });
  const box = el.getBoundingClientRect();
  if (box.width < 1 || box.height < 1) return { empty: true };
  return { x: box.left, y: box.top, width: box.width, height: box.height };
}
