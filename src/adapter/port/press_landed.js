// Where the last watched press of this document went (see clickable.js's watchPress), and the
// watch ended: {seen, missed}, missed naming the element it landed on instead, seen false when
// no press came to this document at all; null when this document holds no watch (the press
// started a navigation that replaced it).
() => {
  const press = document.__navguardPress;
  if (!press) return null;
  press.stop();
  document.__navguardPress = undefined;
  return { seen: press.seen, missed: press.missed };
}
