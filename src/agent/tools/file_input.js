// What `upload_file` needs to know of its element before the browser gets the files: whether
// it is a file input, takes more than one file, is disabled; and the files it holds now
// (each {name, size}). The element is found as a click finds it (findElement): null when a
// selector matches nothing, the staleness's name when a ref's document or element is gone.
(target, names) => {
  const el = findElement(target, names);
  if (!el || typeof el === "string") return el;
  const file = el.tagName === "INPUT" && el.type === "file";
  return {
    file,
    tag: el.tagName.toLowerCase() + (el.type ? "[type=" + el.type + "]" : ""),
    multiple: file && el.multiple,
    disabled: !!el.disabled,
    files: file ? Array.from(el.files || [], (f) => ({ name: f.name, size: f.size })) : [],
  };
}
