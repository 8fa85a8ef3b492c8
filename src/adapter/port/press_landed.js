// Where the last watched press of this document went (see clickable.js's watchPress):
// {seen, missed}, missed naming the element it landed on instead; null when this document
// holds no watch (the press started a navigation that replaced it).
() => {
  const press = document.__navguardPress;
  return press ? { seen: press.seen, missed: press.missed } : null;
}
