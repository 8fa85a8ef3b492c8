// Before `fill_form` types a field's text: focuses the field and selects all it holds (an
// input's or a textarea's value, an editor's content), so that the key the tool presses next
// deletes it through the page's own input events. The answer: whether it held anything, or
// findElement's answer when the element is not found.
(target, names) => {
  const el = findElement(target, names);
  if (!el || typeof el === "string") return el;
  el.focus();
  if (el.isContentEditable) {
    const range = document.createRange();
    range.selectNodeContents(el);
    const selection = getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
    return { held: (el.textContent || "").length > 0 };
  }
  if (typeof el.select === "function") el.select();
  return { held: (el.value || "").length > 0 };
}
