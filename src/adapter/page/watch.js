// What the agent asks of a page it waits on, counted from before the page's own scripts run;
// the page behaves as before (but for its print dialog: see below).
//
// Its soon-due timers, for the wait for a quiet page: which `setTimeout`s the page set that
// fire within half a second, and a way to wait until those pending now have fired (or were
// cleared). The page's timers keep their ids, order and `this`, only counted. A page in a
// hidden tab has its timers held back: Firefox fires none of them sooner than a second after
// it was set, so such a timer is due a second after it was set, not at its delay.
//
// Whether the page has begun to leave: the navigation it started last (a script's `location`,
// a link, a form), as the page's own Navigation API announces it, at once. The browser's
// event of that start can come after the answer of a script the page ran at the same moment
// (Firefox ESR 153 sends it from another process), so the agent asks the page too, and waits
// for the browser's event only when the page says it is leaving.
//
// The requests its scripts have asked for and not yet had answered (`fetch`, `XMLHttpRequest`),
// with when each was asked: the browser's event of a request a click handler sends can come
// after the answer of the agent's look at the page's next frame, so the agent asks the page
// which requests it began since the action, and waits for the browser's word of those.
//
// And the answers' bodies its scripts are reading: a script's `await fetch(…)` goes on once the
// headers came, its `await response.json()` (or an `XMLHttpRequest`'s load) only once the body
// ended, which can be long after; until then what the page does with the answer has not
// happened, so the agent's look waits for those reads.
//
// And the closed shadow roots its scripts attach: a closed root hides its elements from every
// script of the page, the agent's look among them, so each is kept as it is attached (the
// page's call otherwise unchanged), and the look lists its elements as it lists an open one's.
//
// And whether the page's next frame, and the task after it, have passed since the page was
// last shown (its load, or its return from the back/forward cache): what showing it set off
// has begun by then, so the agent's first look at a page shown a while ago need not wait for
// a frame of its own (its soon-due timers it still waits for).
//
// One thing it changes: `window.print()` returns at once, as it does in headless Chromium,
// without a print dialog. Firefox opens its dialog modal and holds the page's script (and the
// click that ran it) until a person closes it, which no WebDriver BiDi command can; an agent
// has no printer to choose, so the page's script goes on past the call.
() => {
  const key = Symbol.for("navguard.timers");
  if (window[key]) return;
  window.print = function print() {};
  const attachShadow = Element.prototype.attachShadow;
  const closedRoots = new WeakMap();
  Element.prototype.attachShadow = {
    attachShadow(init) {
      const root = attachShadow.call(this, init);
      if (init && init.mode === "closed") closedRoots.set(this, root);
      return root;
    },
  }.attachShadow;
  window[Symbol.for("navguard.closedRoot")] = (host) => closedRoots.get(host) || null;
  // The page's own timer functions, taken before they are counted.
  const set = window.setTimeout.bind(window);
  const clear = window.clearTimeout.bind(window);
  watchLeaving();
  watchRequests();
  watchShown();
  const SOON_MS = 500;
  const HIDDEN_CLAMP_MS = 1000;
  const clearEvery = window.clearInterval.bind(window);
  const pending = new Map(); // id -> when it is due (performance.now())
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
    const hold = document.hidden ? Math.max(delay, HIDDEN_CLAMP_MS) : delay;
    pending.set(id, { set: performance.now(), due: performance.now() + hold });
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
      // fired or been cleared, or `slackMs` after the last of them was due; true when there
      // were any.
      settled(sinceMs, slackMs) {
        const now = performance.now();
        const from = now - sinceMs;
        const timers = [...pending].filter(([, t]) => t.set >= from);
        if (timers.length === 0) return Promise.resolve(false);
        const mine = timers.map(([id]) => id);
        const limitMs = Math.max(0, ...timers.map(([, t]) => t.due - now)) + slackMs;
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

  // `pageshow` comes after the load event, and again on a return from the back/forward cache;
  // the listener, added before the page's own scripts run, asks for the frame first, so the
  // page's own handlers of both events ran before it. A hidden page draws no frames: the task
  // stands for its frame, as in the agent's probe.
  function watchShown() {
    let passed = false;
    const task = () => {
      const channel = new MessageChannel();
      channel.port1.onmessage = () => {
        passed = true;
      };
      channel.port2.postMessage(null);
    };
    window.addEventListener("pagehide", () => {
      passed = false;
    });
    window.addEventListener("pageshow", () => {
      passed = false;
      if (document.hidden) task();
      else requestAnimationFrame(task);
    });
    Object.defineProperty(window, Symbol.for("navguard.shown"), { value: () => passed });
  }

  // The cross-document navigation the page started last, until the agent takes it; one the
  // page cancelled (`preventDefault`) or took over (`intercept`, a single-page app's route) is
  // not leaving, nor is a download, nor a navigation of a page that then came back from the
  // back/forward cache.
  function watchLeaving() {
    const leavingKey = Symbol.for("navguard.leaving");
    if (typeof navigation === "undefined" || typeof NavigateEvent === "undefined") return;
    let last = null;
    // When it began (ms since the epoch, the clock of the browser's own event timestamps): the
    // agent matches the tell to the browser's word of that navigation by it.
    let lastAt = 0;
    const kept = new WeakSet();
    const intercept = NavigateEvent.prototype.intercept;
    if (typeof intercept === "function") {
      NavigateEvent.prototype.intercept = function (...args) {
        kept.add(this);
        return intercept.apply(this, args);
      };
    }
    navigation.addEventListener("navigate", (event) => {
      if (!event.destination.sameDocument && !event.downloadRequest) {
        last = event;
        lastAt = Date.now();
      }
    });
    window.addEventListener("pageshow", (event) => {
      if (event.persisted) last = null;
    });
    Object.defineProperty(window, leavingKey, {
      // The navigation the page began since the last call, `{url, at}`, or null; each start is
      // told once.
      value: () => {
        const event = last;
        last = null;
        if (!event || event.defaultPrevented || kept.has(event)) return null;
        return { url: event.destination.url, at: lastAt };
      },
    });
  }

  // Each `fetch` and `XMLHttpRequest.send` of the page's own scripts, from when it is asked
  // (ms since the epoch, the agent's own clock on this machine) until its answer begins (the
  // fetch's promise settles; the request's headers arrive, or it ends). Only http(s): other
  // schemes never show as the browser's network events.
  function watchRequests() {
    const askedKey = Symbol.for("navguard.asked");
    const readingKey = Symbol.for("navguard.reading");
    const open = new Map(); // token -> { url, at }
    const reading = new Map(); // token -> { url, at, done }: a body being read
    const answers = new WeakMap(); // a fetch's Response -> its { url, at }
    let next = 0;
    const begin = (url) => {
      let absolute;
      try {
        absolute = new URL(url, document.baseURI);
      } catch {
        return null;
      }
      if (absolute.protocol !== "http:" && absolute.protocol !== "https:") return null;
      absolute.hash = "";
      const token = ++next;
      open.set(token, { url: absolute.href, at: Date.now() });
      return token;
    };
    const end = (token) => {
      if (token !== null) open.delete(token);
    };
    // The page began to read the body of the answer to `asked`: until `body` settles. The
    // agent's wait is told after the page's own reaction to it, which was queued first.
    const read = (asked, body) => {
      const token = ++next;
      const settle = () => {
        reading.delete(token);
      };
      reading.set(token, { ...asked, done: Promise.resolve(body).then(settle, settle) });
    };
    const pageFetch = window.fetch;
    if (typeof pageFetch === "function") {
      window.fetch = function fetch(input, init) {
        const token = begin(input instanceof Request ? input.url : String(input));
        const asked = token === null ? undefined : open.get(token);
        const answer = pageFetch.apply(this, arguments);
        answer.then(
          (response) => {
            end(token);
            if (asked && response instanceof Response) answers.set(response, asked);
          },
          () => end(token),
        );
        return answer;
      };
    }
    const Answer = window.Response;
    if (typeof Answer === "function") {
      for (const name of ["arrayBuffer", "blob", "bytes", "formData", "json", "text"]) {
        const body = Answer.prototype[name];
        if (typeof body !== "function") continue;
        // A method of the same name that is no constructor, as the page's own.
        Answer.prototype[name] = {
          [name]() {
            const result = body.apply(this, arguments);
            const asked = answers.get(this);
            if (asked) read(asked, result);
            return result;
          },
        }[name];
      }
    }
    const Xhr = window.XMLHttpRequest;
    if (typeof Xhr === "function") {
      const urls = new WeakMap();
      const xhrOpen = Xhr.prototype.open;
      const xhrSend = Xhr.prototype.send;
      Xhr.prototype.open = function open(method, url) {
        urls.set(this, String(url));
        return xhrOpen.apply(this, arguments);
      };
      Xhr.prototype.send = function send() {
        const xhr = this;
        const token = urls.has(xhr) ? begin(urls.get(xhr)) : null;
        const asked = token === null ? undefined : open.get(token);
        let began = false;
        // Its headers came: asked no more, and its body is read until its load ends (after
        // the page's own load handlers).
        const answered = () => {
          if (began || xhr.readyState < Xhr.HEADERS_RECEIVED) return;
          began = true;
          end(token);
          xhr.removeEventListener("readystatechange", answered);
          if (asked) read(asked, new Promise((done) => xhr.addEventListener("loadend", done, { once: true })));
        };
        const finish = () => {
          end(token);
          xhr.removeEventListener("readystatechange", answered);
          xhr.removeEventListener("loadend", finish);
        };
        xhr.addEventListener("readystatechange", answered);
        xhr.addEventListener("loadend", finish);
        try {
          return xhrSend.apply(xhr, arguments);
        } catch (error) {
          finish();
          throw error;
        }
      };
    }
    Object.defineProperty(window, readingKey, {
      // Waits until the reads now under way of the bodies of the requests asked at or after
      // `sinceEpochMs` have ended, at most `capMs`: null when there were none, else the URLs
      // of those still being read.
      value: (sinceEpochMs, capMs) => {
        const mine = [...reading].filter(([, r]) => r.at >= sinceEpochMs);
        if (mine.length === 0) return Promise.resolve(null);
        return new Promise((resolve) => {
          const still = () => mine.filter(([token]) => reading.has(token)).map(([, r]) => r.url);
          const limit = set(() => resolve(still()), capMs);
          Promise.all(mine.map(([, r]) => r.done)).then(() => {
            clear(limit);
            resolve([]);
          });
        });
      },
    });
    Object.defineProperty(window, askedKey, {
      // The URLs of the requests asked at or after `sinceEpochMs` and not yet answered.
      value: (sinceEpochMs) => [...open.values()].filter((r) => r.at >= sinceEpochMs).map((r) => r.url),
    });
  }
}
