// The ref an element has, as the snapshot gives refs (snapshot.js keeps the same registry,
// document.__navguard: its id names the document, and each element listed once has a number),
// so that a tool can hand the pointer an element it found itself (a combobox's option), and a
// ref of a document that has gone is refused as stale.
(el) => {
  if (!document.__navguard) {
    const id = Array.from(crypto.getRandomValues(new Uint8Array(4)), (b) => (b % 36).toString(36)).join("")
      + Date.now().toString(36).slice(-3);
    Object.defineProperty(document, "__navguard", { value: { id, next: 1, refs: new Map(), of: new WeakMap() } });
  }
  const g = document.__navguard;
  let n = g.of.get(el);
  if (!n) { n = g.next++; g.of.set(el, n); g.refs.set(n, new WeakRef(el)); }
  return g.id + "." + n;
}
