// The labels (text, whitespace folded) of a listbox's options that are chosen (aria-selected),
// or findElement's answer when the listbox is not found.
(target, names) => {
  const box = findElement(target, names);
  if (!box || typeof box === "string") return box;
  return Array.from(box.querySelectorAll('[role="option"][aria-selected="true"]'),
    (o) => (o.textContent || "").replace(/\s+/g, " ").trim());
}
