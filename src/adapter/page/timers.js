// The page's soon-due timers, for the agent's wait for a quiet page: which `setTimeout`s the
// page set that fire within half a second, and a way to wait until those pending now have
// fired (or were cleared). Runs before the page's own scripts; the page's timers behave exactly
// as before (same ids, same order, same `this`), only counted.
() => {
  const key = Symbol.for("navguard.timers");
  if (window[key]) return;
  const SOON_MS = 500;
  const set = window.setTimeout.bind(window);
  const clear = window.clearTimeout.bind(window);
  const clearEvery = window.clearInterval.bind(window);
  const pending = new Map(); // id -> when it was set (performance.now())
  const waiters = new Set();
  const done = (id) => {
    if (pending.delete(id)) waiters.forEach((check) => check());
  };
  window.setTimeout = function setTimeout(handler, timeout, ...args) {
    const delay = Number(timeout) || 0;
    if (typeof handler !== "function" || delay > SOON_MS) return set(handler, timeout, ...args);
    const id = set(function () {
      done(id);
      return handler.apply(this, arguments);
    }, timeout, ...args);
    pending.set(id, performance.now());
    return id;
  };
  window.clearTimeout = function clearTimeout(id) {
    done(id);
    return clear(id);
  };
  window.clearInterval = function clearInterval(id) {
    done(id);
    return clearEvery(id);
  };
  Object.defineProperty(window, key, {
    value: Object.freeze({
      // Resolves once every soon-due timer set in the last `sinceMs` and pending now has
      // fired or been cleared, or after `limitMs`; true when there were any.
      settled(sinceMs, limitMs) {
        const from = performance.now() - sinceMs;
        const mine = [...pending].filter(([, at]) => at >= from).map(([id]) => id);
        if (mine.length === 0) return Promise.resolve(false);
        return new Promise((resolve) => {
          const check = () => {
            if (mine.every((id) => !pending.has(id))) finish();
          };
          const finish = () => {
            waiters.delete(check);
            clear(limit);
            resolve(true);
          };
          const limit = set(finish, limitMs);
          waiters.add(check);
        });
      },
      later: set,
      forget: clear,
    }),
  });
}
