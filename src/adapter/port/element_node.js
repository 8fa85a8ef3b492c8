// The element a CSS selector ({css}) or a ref ({document, index}) names, as findElement finds
// it (null, or the staleness's name, when there is none), without the click's checks: for what
// is done to an element without the pointer (a file input's files).
(target, names) => findElement(target, names)
