(target, names) => {
  if (target.css !== undefined) return document.querySelector(target.css);
  const g = document.__navguard;
  if (!g || g.id !== target.document) return names.replaced;
  const el = g.refs.get(target.index)?.deref();
  return el && el.isConnected ? el : names.removed;
}
