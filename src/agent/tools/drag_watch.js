// `drag`'s first step: finds both elements as a click finds them (findElement), and watches,
// until drag_seen.js reads it, whether the page took the drag: a `dragstart` from the dragged
// element, a `drop` on the target (and whether the page accepted it), a change of the
// target's or the dragged element's list's content (a list driven by pointer events moves its
// items itself). The answer: {from} or {to} holding findElement's answer for the element not
// found, {same} when both name one element, else {draggable}: whether the page made the
// dragged element draggable the HTML5 way (the browser, not the page, then starts the drag).
(from, to, names) => {
  const source = findElement(from, names);
  if (!source || typeof source === "string") return { from: source };
  const target = findElement(to, names);
  if (!target || typeof target === "string") return { to: target };
  if (source === target || source.contains(target)) return { same: true };
  const key = Symbol.for("navguard.drag");
  window[key]?.stop();
  const seen = { started: false, dropped: false, accepted: false, changed: false };
  const started = (e) => { if (source.contains(e.target)) seen.started = true; };
  const dropped = (e) => {
    if (target.contains(e.target)) {
      seen.dropped = true;
      // Read once the page's own listeners ran: a drop it took is one whose default it prevented.
      setTimeout(() => { seen.accepted = seen.accepted || e.defaultPrevented; }, 0);
    }
  };
  document.addEventListener("dragstart", started, true);
  document.addEventListener("drop", dropped, true);
  const watch = new MutationObserver(() => { seen.changed = true; });
  const options = { childList: true, subtree: true, characterData: true };
  watch.observe(target, options);
  if (source.parentElement && !source.parentElement.contains(target)) watch.observe(source.parentElement, options);
  const stop = () => {
    document.removeEventListener("dragstart", started, true);
    document.removeEventListener("drop", dropped, true);
    watch.disconnect();
  };
  window[key] = { seen, stop };
  return { draggable: !!source.closest('[draggable="true"], a[href], img') };
}
