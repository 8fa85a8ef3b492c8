// adapter.mjs: an example agent adapter for the browser-agent conformance harness.
//
// The harness talks to it with JSON lines: one request object per line on stdin, one answer
// object per line on stdout (nothing else may go to stdout: logs go to stderr). The first
// request is {"id":0,"start":{...}}, the others {"id":N,"tool":T,"args":{...}}; each id is
// answered exactly once, in order. Copy this file to wrap your own agent: replace the tool
// functions in TOOLS with calls into your agent's own browser layer.
import { createInterface } from 'node:readline';
import { readFileSync } from 'node:fs';
import { chromium, errors } from 'playwright-core';

const VERSION = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')).version;
const T = 20_000;    // timeout of every browser call (the harness gives a tool 30 s)
const GRACE = 300;   // after an action, how long a navigation it causes has to start
const REACH = 5_000; // how long an interaction waits for its element to be ready (as Playwright MCP)
const FLAGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

const log = (...a) => console.error('[jsonl-example]', ...a);
const send = (obj) => process.stdout.write(JSON.stringify(obj) + '\n');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// An error with one of the protocol's classes:
// stale-ref · not-found · timeout · navigation · dialog · other.
class AdapterError extends Error {
  constructor(cls, message) { super(message); this.cls = cls; }
}

// Map any error to {class, message}. Playwright's messages start with the call
// ("page.goto: net::ERR_CONNECTION_REFUSED at http://…") and may end with a "Call log:"
// whose last line says what it was waiting for: keep that line.
function classify(e) {
  const [head, calls = ''] = String(e?.message ?? e).split('\nCall log:');
  const last = calls.replace(/\x1b\[[0-9;]*m/g, '').trim().split('\n').pop().trim().replace(/^- /, '');
  const message = head.trim() + (last ? ` (${last})` : '');
  if (e instanceof AdapterError) return { class: e.cls, message };
  if (e instanceof errors.TimeoutError) return { class: 'timeout', message };
  if (/net::ERR_|Cannot navigate to invalid URL/.test(head)) return { class: 'navigation', message };
  return { class: 'other', message };
}

// Race a promise (one of Playwright's calls that take no timeout option) against T.
function withTimeout(promise, what, ms = T) {
  let timer;
  const late = new Promise((_, no) => { timer = setTimeout(() => no(new AdapterError('timeout', `${what}: timed out after ${ms} ms`)), ms); });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

// ---- browser state -------------------------------------------------------------------
let browser = null;      // the Playwright Browser
let context = null;      // the BrowserContext whose pages are the tabs
const tabs = [];         // pages in creation order (tab index = position + 1)
let current = null;      // the page the tools act on
const dialogs = new Map(); // page -> its open Dialog, kept open until handle_dialog

// Track a page: its tab, its dialogs. Listening to 'dialog' keeps dialogs open (Playwright
// dismisses them itself only when nobody listens).
function watch(page) {
  if (tabs.includes(page)) return;
  tabs.push(page);
  page.on('dialog', (d) => { dialogs.set(page, d); log(`${d.type()} dialog: ${d.message()}`); });
  page.on('close', () => {
    const i = tabs.indexOf(page);
    if (i >= 0) tabs.splice(i, 1);
    dialogs.delete(page);
    if (current === page) current = tabs[Math.max(0, i - 1)] ?? null; // fall back to the tab before
  });
}

function page() {
  if (!current) throw new AdapterError('not-found', 'no tab is open: use new_tab');
  return current;
}

// url and title of a page. title() runs script in the page, which an open dialog blocks.
async function info(p) {
  const d = dialogs.get(p);
  const title = d ? '' : await withTimeout(p.title(), 'title').catch(() => '');
  return { url: p.url(), title };
}

// Answer with the page after an action, and say so when the action opened a dialog.
async function done(p, extra = {}) {
  if (p.isClosed()) {
    return { ...(current ? await done(current) : {}), text: 'the tab closed', ...extra };
  }
  const d = dialogs.get(p);
  const open = d ? `${d.type()} dialog open: ${d.message()}` : null;
  return { page: await info(p), ...(open ? { text: open, dialog: open } : {}), ...extra };
}

// Run fn, but stop waiting as soon as it opens a dialog in p (a page that alerts while
// loading never fires 'load'; a click handler that alerts is blocked until it is answered).
async function guarded(p, fn) {
  let stop;
  const opened = new Promise((resolve) => { stop = resolve; p.on('dialog', stop); });
  const work = fn();
  work.catch(() => {});  // once a dialog wins the race, a later failure of work is ignored
  try {
    await Promise.race([work, opened]);
  } catch (e) {  // the action may have closed its own tab (a button that runs window.close())
    if (!p.isClosed() && !/Target page, context or browser has been closed/.test(e.message)) throw e;
  } finally { p.off('dialog', stop); }
}

// Run an action that may start a navigation of p's main frame, and wait until that navigation
// has loaded, failed, or turned out not to commit (a 204 or a download). Never longer than T.
async function settle(p, action) {
  let nav = null;
  const onRequest = (req) => {
    if (nav || !req.isNavigationRequest() || req.frame() !== p.mainFrame()) return;
    nav = follow(p, req);
    nav.catch(() => {});  // it may fail before we await it below
  };
  p.on('request', onRequest);
  try { await action(); await sleep(GRACE); } finally { p.off('request', onRequest); }
  if (nav) await nav;
}

// Runs the action, then waits until the requests the page began from its start until GRACE
// after it have been answered (at most REACH; a fetch's promise resolves on the answer's
// headers, and a page that never reads the body never finishes the request), then for the page
// to draw a frame, so the scripts that handle the answers have run.
async function awaitRequests(p, action) {
  const open = new Set();
  let idle = null;
  const begun = (r) => { open.add(r); };
  const ended = (r) => { if (open.delete(r) && open.size === 0 && idle) idle(); };
  const answered = (response) => ended(response.request());
  p.on('request', begun);
  p.on('response', answered);
  p.on('requestfailed', ended);
  try {
    await action();
    await sleep(GRACE);
    p.off('request', begun);
    if (open.size > 0) {
      let timer;
      await Promise.race([
        new Promise((resolve) => { idle = resolve; }),
        new Promise((resolve) => { timer = setTimeout(resolve, REACH); }),
      ]);
      clearTimeout(timer);
    }
    const frame = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    await withTimeout(p.evaluate(frame), 'scroll').catch(() => {});
  } finally {
    p.off('request', begun);
    p.off('response', answered);
    p.off('requestfailed', ended);
  }
}

function follow(p, req) {
  return new Promise((resolve, reject) => {
    let committed = false, over = false;
    const events = {
      request: (r) => { if (r.redirectedFrom() === req) req = r; },   // follow HTTP redirects
      framenavigated: (f) => {
        if (f !== p.mainFrame() || committed) return;
        committed = true;
        p.waitForLoadState('load', { timeout: T }).then(() => finish(), () => finish(late()));
      },
      requestfailed: (r) => {
        if (r !== req) return;
        const why = r.failure()?.errorText ?? 'failed';  // e.g. net::ERR_CONNECTION_REFUSED
        finish(why.includes('ERR_ABORTED') ? null : new AdapterError('navigation', `${why} at ${r.url()}`));
      },
      requestfinished: (r) => { if (r === req) setTimeout(() => committed || finish(), 1000); },
      close: () => finish(),
    };
    const late = () => new AdapterError('timeout', `the action was done, but the navigation it started (${req.url()}) did not load within ${T} ms`);
    const timer = setTimeout(() => finish(late()), T);
    function finish(err) {
      if (over) return;
      over = true;
      clearTimeout(timer);
      for (const [name, fn] of Object.entries(events)) p.off(name, fn);
      err ? reject(err) : resolve();
    }
    for (const [name, fn] of Object.entries(events)) p.on(name, fn);
  });
}

// ---- refs ------------------------------------------------------------------------------
// Runs in the page. A random id is kept once per document on window; each element shown gets
// a ref "<doc>:<n>" in a data attribute, the same ref in every snapshot of that document.
function collect() {
  const s = window.__jsonlAgent ??= { doc: Math.random().toString(36).slice(2, 8), next: 1 };
  const clean = (t) => (t ?? '').replace(/\s+/g, ' ').trim().slice(0, 100);
  const roleOf = (el) => {
    const tag = el.tagName.toLowerCase(), type = (el.getAttribute('type') ?? 'text').toLowerCase();
    if (el.getAttribute('role')) return el.getAttribute('role');
    if (tag === 'a') return 'link';
    if (tag === 'button' || tag === 'summary') return 'button';
    if (tag === 'textarea' || el.isContentEditable) return 'textbox';
    if (tag === 'select') return el.multiple ? 'listbox' : 'combobox';
    if (/^h[1-6]$/.test(tag)) return 'heading';
    if (tag !== 'input') return 'generic';
    return { checkbox: 'checkbox', radio: 'radio', submit: 'button', button: 'button', reset: 'button',
      image: 'button', range: 'slider', number: 'spinbutton', search: 'searchbox' }[type] ?? 'textbox';
  };
  const nameOf = (el) => {
    const byIds = (el.getAttribute('aria-labelledby') ?? '').split(/\s+/).filter(Boolean);
    const formControl = /^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName);
    return [
      byIds.map((id) => document.getElementById(id)?.innerText ?? '').join(' '),
      el.getAttribute('aria-label'),
      [...(el.labels ?? [])].map((l) => l.innerText).join(' '),
      /^(submit|button|reset)$/.test(el.type) && el.tagName === 'INPUT' ? el.value : '',
      formControl ? '' : el.innerText,
      el.querySelector?.('img[alt]')?.alt,
      el.getAttribute('placeholder'),
      el.getAttribute('title'),
    ].map(clean).find(Boolean) ?? '';
  };
  const sel = 'a[href],button,input:not([type=hidden]),textarea,select,summary,h1,h2,h3,h4,h5,h6,' +
    '[contenteditable=""],[contenteditable=true],[role=button],[role=link],[role=checkbox],[role=radio],' +
    '[role=textbox],[role=searchbox],[role=combobox],[role=tab],[role=menuitem],[role=switch],[role=heading],[role=region]';
  const elements = [];
  for (const el of document.querySelectorAll(sel)) {
    if (!el.checkVisibility({ visibilityProperty: true })) continue;
    let ref = el.getAttribute('data-agent-ref');
    if (!ref?.startsWith(s.doc + ':')) el.setAttribute('data-agent-ref', ref = `${s.doc}:${s.next++}`);
    elements.push({ ref, role: roleOf(el), name: nameOf(el) });
  }
  return { elements, text: clean(document.body?.innerText).slice(0, 4000) };
}

// Find the element a ref names in the current page, or say why it cannot be found.
async function locate(p, ref) {
  const m = /^([a-z0-9]+):(\d+)$/.exec(String(ref ?? ''));
  if (!m) throw new AdapterError('not-found', `no such ref: ${JSON.stringify(ref)} (refs look like "ab12cd:3")`);
  const doc = await withTimeout(p.evaluate(() => window.__jsonlAgent?.doc ?? null), 'ref lookup');
  if (doc !== m[1]) throw new AdapterError('stale-ref', `ref ${ref} is from another document: take a new snapshot`);
  const loc = p.locator(`[data-agent-ref="${ref}"]`).first();
  if (!(await loc.count())) throw new AdapterError('stale-ref', `ref ${ref}: its element is gone: take a new snapshot`);
  return loc;
}

// What a control holds now, read in the page once its handlers ran: a select's chosen options
// (label and value), a checkbox's or radio's state, a field's value, an editor's text.
function held(loc) {
  return withTimeout(loc.evaluate((el) => {
    if (el.tagName === 'SELECT') return { options: [...el.selectedOptions].map((o) => ({ label: o.label, value: o.value })) };
    if (el.type === 'checkbox' || el.type === 'radio') return { checked: el.checked };
    if (el.type === 'file') return { files: [...el.files].map((f) => f.name) };
    return { value: el.isContentEditable ? el.innerText.trim() : el.value };
  }), 'reading the control');
}

// Whether a control holds what it was given: an option chosen by its label or value, a
// checkbox's state, a field's text.
function holds(now, wanted) {
  if (now.options) return [wanted].flat().every((w) => now.options.some((o) => o.label === String(w) || o.value === String(w)));
  if (now.checked !== undefined) return now.checked === (wanted === true || wanted === 'true');
  return now.value === String(wanted);
}

// Gives a control its value as a person would: an option chosen, a box checked or not, text
// filled; says what it holds then, and fails as not-applied when that is not what was asked.
async function give(p, loc, value) {
  const kind = await withTimeout(loc.evaluate((el) => (el.tagName === 'SELECT' ? 'select' : el.type)), 'reading the control');
  await guarded(p, () => settle(p, () => {
    if (kind === 'select') return loc.selectOption([value].flat().map(String), { timeout: REACH });
    if (kind === 'checkbox' || kind === 'radio') return loc.setChecked(value === true || value === 'true', { timeout: REACH });
    return loc.fill(String(value ?? ''), { timeout: REACH });
  }));
  const now = await held(loc);
  if (!holds(now, value)) throw new AdapterError('not-applied', `it holds ${JSON.stringify(now)}, not ${JSON.stringify(value)}`);
  return now;
}

// An element named by a ref, else by a CSS selector (extract's fields).
async function target(p, refOrSelector) {
  return /^[a-z0-9]+:\d+$/.test(String(refOrSelector)) ? locate(p, refOrSelector) : p.locator(String(refOrSelector)).first();
}

// ---- tools ---------------------------------------------------------------------------------
async function tabList() {
  const out = [];
  for (const [i, p] of tabs.entries()) out.push({ index: i + 1, ...(await info(p)), current: p === current });
  return out;
}

function tabAt(index) {
  const p = tabs[Number(index) - 1];
  if (!Number.isInteger(Number(index)) || !p) throw new AdapterError('not-found', `no tab ${index}: there are ${tabs.length}`);
  return p;
}

const TOOLS = {
  async navigate({ url }) {
    const p = page();
    await guarded(p, () => p.goto(url, { waitUntil: 'load', timeout: T }));
    return done(p);
  },
  async new_tab({ url }) {
    const p = await withTimeout(context.newPage(), 'new tab');
    watch(p);
    current = p;
    if (url) await guarded(p, () => p.goto(url, { waitUntil: 'load', timeout: T }));
    return done(p);
  },
  async snapshot() {
    const p = page();
    const { elements, text } = await withTimeout(p.evaluate(collect), 'snapshot');
    return { page: await info(p), snapshot: { elements }, text };
  },
  async click({ ref }) {
    const p = page();
    const loc = await locate(p, ref);
    await guarded(p, () => settle(p, () => loc.click({ timeout: T })));
    return done(p);
  },
  async type({ ref, text, submit }) {
    const p = page();
    const loc = await locate(p, ref);
    const isSelect = await loc.evaluate((el) => el.tagName === 'SELECT', null, { timeout: T });
    await guarded(p, () => settle(p, async () => {
      if (isSelect) await loc.selectOption(String(text), { timeout: T });
      else await loc.fill(String(text ?? ''), { timeout: T });
      if (submit) await loc.press('Enter', { timeout: T });
    }));
    return done(p);
  },
  async press_key({ key }) {
    const p = page();
    await guarded(p, () => settle(p, () => withTimeout(p.keyboard.press(String(key)), 'press_key')));
    return done(p);
  },
  async go_back() {
    // Not page.goBack(): it waits for a 'load' that a page restored from the back/forward
    // cache never fires (the harness's own browser may keep that cache on). CDP instead:
    const p = page();
    const cdp = await withTimeout(context.newCDPSession(p), 'go_back');
    try {
      const { currentIndex, entries } = await withTimeout(cdp.send('Page.getNavigationHistory'), 'go_back');
      if (currentIndex < 1) throw new AdapterError('navigation', 'cannot go back: no previous page in this tab');
      const moved = p.waitForEvent('framenavigated', { predicate: (f) => f === p.mainFrame(), timeout: T });
      moved.catch(() => {});
      await guarded(p, () => settle(p, async () => {
        await cdp.send('Page.navigateToHistoryEntry', { entryId: entries[currentIndex - 1].id });
        await moved;  // a commit, a same-document move, or a restore from the cache
      }));
    } finally { cdp.detach().catch(() => {}); }
    return done(p);
  },
  async wait_for({ text, timeout_ms }) {
    const p = page();
    await guarded(p, () => p.waitForFunction((t) => document.body?.innerText.includes(t), String(text),
      { timeout: Number(timeout_ms) || T }));
    return done(p);
  },
  async list_tabs() { return { tabs: await tabList() }; },
  async select_tab({ index }) {
    current = tabAt(index);
    await withTimeout(current.bringToFront(), 'select_tab');
    return done(current, { tabs: await tabList() });
  },
  async close_tab({ index }) {
    await withTimeout(tabAt(index).close(), 'close_tab');  // the 'close' listener fixes `current`
    return { ...(current ? await done(current) : {}), tabs: await tabList() };
  },
  async select_option({ ref, values }) {
    const p = page();
    const loc = await locate(p, ref);
    if (!(await withTimeout(loc.evaluate((el) => el.tagName === 'SELECT'), 'reading the control'))) {
      throw new AdapterError('not-supported', `${ref} is no <select>: open the combobox with click, then click its option`);
    }
    const now = await give(p, loc, values ?? []);
    return done(p, { text: `the select holds ${now.options.map((o) => o.label).join(', ')}` });
  },
  async fill_form({ fields }) {
    const p = page();
    const said = [];
    for (const { ref, value } of fields ?? []) said.push(`${ref}: ${JSON.stringify(await give(p, await locate(p, ref), value))}`);
    return done(p, { text: said.join('\n') });
  },
  async upload_file({ ref, paths }) {
    const p = page();
    const loc = await locate(p, ref);
    await guarded(p, () => settle(p, () => loc.setInputFiles((paths ?? []).map(String), { timeout: REACH })));
    return done(p, { text: `the input holds ${(await held(loc)).files?.join(', ') ?? 'no files'}` });
  },
  async hover({ ref }) {
    const p = page();
    const loc = await locate(p, ref);
    await guarded(p, () => settle(p, () => loc.hover({ timeout: REACH })));
    return done(p);
  },
  async drag({ from, to }) {
    // Playwright presses, moves and releases the mouse; whether the target took a drop is not
    // something it can tell, so the answer is the page, not a claim.
    const p = page();
    const [source, dest] = [await locate(p, from), await locate(p, to)];
    await guarded(p, () => settle(p, () => source.dragTo(dest, { timeout: REACH })));
    return done(p);
  },
  async scroll({ ref, by, direction }) {
    const p = page();
    if (ref !== undefined && by === undefined) {
      const loc = await locate(p, ref);
      await guarded(p, () => settle(p, () => loc.scrollIntoViewIfNeeded({ timeout: REACH })));
    } else {
      const move = (how) => {
        const up = how.direction === 'up';
        const step = how.by === 'end' ? document.scrollingElement.scrollHeight : innerHeight * 0.85;
        window.scrollBy({ top: up ? -step : step, behavior: 'instant' });
      };
      // A feed that loads more when scrolled to its end asks the site for it: the answer waits
      // for the requests the scroll started (bounded), then for a frame, so it shows what came.
      await guarded(p, () => settle(p, () => awaitRequests(p, () => withTimeout(p.evaluate(move, { by, direction }), 'scroll'))));
    }
    return done(p);
  },
  async extract({ ref, fields }) {
    const p = page();
    const read = async (loc) => withTimeout(loc.evaluate((el) => (el.tagName === 'SELECT'
      ? [...el.selectedOptions].map((o) => o.label).join(', ')
      : 'value' in el && el.tagName !== 'BUTTON' ? el.value : el.innerText.trim())), 'extract');
    if (fields) {
      const out = {};
      for (const [name, where] of Object.entries(fields)) out[name] = await read(await target(p, where));
      return done(p, { text: JSON.stringify(out) });
    }
    const text = ref === undefined ? await withTimeout(p.evaluate(() => document.body.innerText), 'extract') : await read(await locate(p, ref));
    return done(p, { text });
  },
  async screenshot({ ref, full_page }) {
    // The PNG goes in the answer's picture, in base64; the text says only its size.
    const p = page();
    const png = ref === undefined
      ? await withTimeout(p.screenshot({ fullPage: Boolean(full_page), timeout: T }), 'screenshot')
      : await withTimeout((await locate(p, ref)).screenshot({ timeout: REACH }), 'screenshot');
    return done(p, { text: `a PNG of ${png.length} bytes`, picture: png.toString('base64') });
  },
  async handle_dialog({ accept, text }) {
    const p = page();
    const d = dialogs.get(p);
    if (!d) throw new AdapterError('not-found', 'no dialog is open in the current tab');
    dialogs.delete(p);
    const message = `${d.type()}: ${d.message()}`;
    // accepting a confirm may navigate; the page may also open another dialog straight away
    await guarded(p, () => settle(p, () => withTimeout(accept ? d.accept(text) : d.dismiss(), 'handle_dialog')));
    return done(p, { text: `${accept ? 'accepted' : 'dismissed'} ${message}` });
  },
};

// ---- start and the request loop ------------------------------------------------------------
async function start({ chromium: path, cdp_endpoint: endpoint } = {}) {
  if (endpoint) {
    // The harness's browser: use its default context and its first page.
    browser = await chromium.connectOverCDP(endpoint, { timeout: T });
    context = browser.contexts()[0];
    if (!context) throw new Error(`no default browser context at ${endpoint}`);
  } else {
    // Our own browser: Playwright adds --headless (new headless in today's Chromium) and a
    // fresh temporary --user-data-dir, which it removes again on close.
    browser = await chromium.launch({ executablePath: path, headless: true, args: FLAGS, timeout: T });
    context = await browser.newContext();
  }
  context.pages().forEach(watch);
  context.on('page', watch);  // pages the site opens (popups) become tabs, but not current
  current = tabs[0] ?? null;
  if (!current) { current = await context.newPage(); watch(current); }
  log(`${endpoint ? 'attached to' : 'launched'} Chromium ${browser.version()}`);
  // JSONL_EXAMPLE_TOOLS (comma-separated) offers fewer tools: how an agent without one looks.
  const only = process.env.JSONL_EXAMPLE_TOOLS?.split(',').map((t) => t.trim()).filter(Boolean);
  const tools = Object.keys(TOOLS).filter((t) => !only || only.includes(t));
  return { agent: { name: 'jsonl-example', version: VERSION }, tools };
}

async function handle(line) {
  let req;
  try { req = JSON.parse(line); } catch (e) {
    return send({ id: null, ok: false, error: { class: 'other', message: `malformed line: ${e.message}` } });
  }
  if (req === null || typeof req !== 'object' || Array.isArray(req)) {
    return send({ id: null, ok: false, error: { class: 'other', message: 'malformed line: not a JSON object' } });
  }
  const id = req.id ?? null;
  try {
    let result;
    if (req.start) {
      if (browser) throw new Error('already started');
      result = await start(req.start);
    } else {
      const tool = TOOLS[req.tool];
      if (!tool || !Object.hasOwn(TOOLS, req.tool)) throw new Error(`unknown tool: ${req.tool}`);
      if (!browser) throw new Error('not started: send {"id":0,"start":{...}} first');
      const d = current && dialogs.get(current);
      if (d && req.tool !== 'handle_dialog' && req.tool !== 'list_tabs') {
        throw new AdapterError('dialog', `${d.type()} dialog open: ${JSON.stringify(d.message())}: answer it with handle_dialog`);
      }
      result = await tool(req.args ?? {});
    }
    send({ id, ok: true, ...result });
  } catch (e) {
    log(`id ${id}:`, e?.stack ?? e);
    const error = classify(e);
    if (req.start) error.class = 'other';  // a failed start is always "other"
    send({ id, ok: false, error });
  }
}

// A stray rejection (a promise we stopped waiting for) must not end the adapter.
process.on('unhandledRejection', (e) => log('unhandled:', e?.message ?? e));

// One request at a time, in order. On EOF: finish the queue, then let go of the browser.
let queue = Promise.resolve();
const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
rl.on('line', (line) => { if (line.trim()) queue = queue.then(() => handle(line)); });
rl.on('close', async () => {
  await queue;
  // close() on a connectOverCDP browser only disconnects: the harness's Chromium keeps running.
  // On a launched one it ends Chromium and removes its temporary profile.
  await withTimeout(browser?.close() ?? Promise.resolve(), 'close').catch((e) => log(e.message));
  process.exit(0);
});
