// The page as `extract` reads it: its URL, title and whole visible text (whitespace folded,
// at most caps.text characters, and whether it was cut there).
(caps) => {
  const text = (document.body ? document.body.innerText : "").replace(/\s+/g, " ").trim();
  return { url: location.href, title: document.title, text: text.slice(0, caps.text), cut: text.length > caps.text };
}
