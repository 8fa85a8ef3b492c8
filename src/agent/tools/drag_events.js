// An HTML5 drag and drop the browser did not start from the pointer (Firefox starts none from
// WebDriver's input): the drag's events, dispatched to the page with one DataTransfer as a
// browser would send them: dragstart on the dragged element, dragenter and dragover on the
// target, drop there only when the page accepted the dragover (prevented its default), and
// dragend. The elements are found as a click finds them (findElement); the answer is
// {dropped}: whether a drop was sent, or findElement's answer for an element not found.
(from, to, names) => {
  const source = findElement(from, names);
  if (!source || typeof source === "string") return source;
  const target = findElement(to, names);
  if (!target || typeof target === "string") return target;
  const centre = (el) => {
    const box = el.getBoundingClientRect();
    return { clientX: box.left + box.width / 2, clientY: box.top + box.height / 2 };
  };
  const data = new DataTransfer();
  const send = (el, type) => el.dispatchEvent(new DragEvent(type, {
    bubbles: true, cancelable: true, composed: true, dataTransfer: data, ...centre(el),
  }));
  if (!send(source, "dragstart")) return { dropped: false };
  send(target, "dragenter");
  const accepted = !send(target, "dragover");
  if (accepted) send(target, "drop");
  send(source, "dragend");
  return { dropped: accepted };
}
