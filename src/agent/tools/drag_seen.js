// What drag_watch.js saw since it began: {started, dropped, accepted, changed}; with `stop`,
// it stops watching. Null when nothing was watched (the document was replaced meanwhile).
(stop) => {
  const watched = window[Symbol.for("navguard.drag")];
  if (!watched) return null;
  if (stop) {
    watched.stop();
    delete window[Symbol.for("navguard.drag")];
  }
  return watched.seen;
}
