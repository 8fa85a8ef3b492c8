// adapter.mjs: Stagehand v4 (npm @browserbasehq/stagehand, pinned in package.json) as an agent
// under test of the conformance harness, through its model-free page API.
//
// The harness talks to it with JSON lines: one request object per line on stdin, one answer
// object per line on stdout (nothing else may go to stdout: logs go to stderr, as do
// Stagehand's own). The first request is {"id":0,"start":{...}}, the others
// {"id":N,"tool":T,"args":{...}}; each id is answered exactly once, in order. The structure
// follows agents/jsonl-example/adapter.mjs; what differs is that every tool is a call of
// Stagehand's own (page.goto, page.snapshot, locator("xpath=…").click, …), with no waiting or
// checking of the adapter's own around it: the run measures Stagehand, not this file.
//
// Stagehand 4 drives the browser from an extension it loads into Chromium (its service worker
// holds the browser's CDP connection and runs every page method); the Node side sends it JSON-RPC
// over CDP. Nothing here needs a model, an API key or Browserbase: act/observe/extract are not
// used, no telemetry endpoint is given, and every connection is to 127.0.0.1.
import { createInterface } from 'node:readline';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { EventEmitter } from 'node:events';
import { localBrowser, Stagehand, RPCResponseTimeoutError } from '@browserbasehq/stagehand';

const VERSION = JSON.parse(readFileSync(
  new URL('./node_modules/@browserbasehq/stagehand/package.json', import.meta.url), 'utf8')).version;
const CALL = 25_000;   // deadline of every call (the harness gives a tool 30 s)
const SHORT = 5_000;   // deadline of the page's url/title read after an action
const WAIT = 20_000;   // wait_for's timeout when the call gives none
// The start's deadline: above Stagehand's own 60 s for its start, below the 90 s agent.toml gives.
const START = 75_000;
// Added to Stagehand's own launch flags (it passes --remote-allow-origins=*,
// --enable-unsafe-extension-debugging, --disable-background-networking, … itself): no GPU, no
// QUIC, and no name resolves but loopback, as in the harness's own browser.
const FLAGS = ['--no-sandbox', '--disable-gpu', '--disable-quic',
  '--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1 , EXCLUDE localhost'];

const log = (...a) => console.error('[stagehand-adapter]', ...a);
const send = (obj) => process.stdout.write(JSON.stringify(obj) + '\n');

// An error with one of the protocol's classes:
// stale-ref · not-found · timeout · navigation · dialog · other.
class AdapterError extends Error {
  constructor(cls, message) { super(message); this.cls = cls; }
}

// Map any error to {class, message}, from Stagehand's own error types and messages. Errors the
// extension raises reach Node as Error(message) with the extension's error name in
// cause.data.name ("TimeoutError" becomes the error's name); Node-side deadlines are
// RPCResponseTimeoutError ("RPC response timed out after N ms: page.title").
function classify(e) {
  const message = String(e?.message ?? e);
  if (e instanceof AdapterError) return { class: e.cls, message };
  if (e?.name === 'TimeoutError' || e instanceof RPCResponseTimeoutError) return { class: 'timeout', message };
  // The ref was shown by a snapshot, and Stagehand no longer finds an element at its XPath.
  if (/^Could not find an element for the given xPath/.test(message)) return { class: 'stale-ref', message };
  if (/^Stagehand page ".*" was not found/.test(message)) return { class: 'not-found', message };
  if (/net::ERR_|Cannot navigate to invalid URL/.test(message)) return { class: 'navigation', message };
  // "Node does not have a layout object", "Failed to fill element (unsupported-element)": the
  // element cannot take the action. The protocol has no class for that: other.
  return { class: 'other', message };
}

// Race a promise against a deadline: a call that hangs answers `timeout` instead of never.
function withTimeout(promise, what, ms = CALL) {
  let timer;
  const late = new Promise((_, no) => { timer = setTimeout(() => no(new AdapterError('timeout', `${what}: no answer from Stagehand within ${ms} ms`)), ms); });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

// ---- dialogs: Stagehand has no dialog API, and a page with a dialog open blocks its calls --------
// The adapter keeps its own CDP connection to the same browser: auto-attached to every page
// target with the Page domain on, it hears javascriptDialogOpening/Closed and answers dialogs
// with Page.handleJavaScriptDialog. Stagehand's page ids are the CDP target ids.
class Dialogs extends EventEmitter {
  open = new Map();      // targetId -> {type, message}
  #sessions = new Map(); // targetId -> CDP session id
  #targets = new Map();  // session id -> targetId
  #pending = new Map();
  #next = 1;
  #ws = null;

  async connect(wsUrl) {
    const ws = new WebSocket(wsUrl);
    await new Promise((resolve, reject) => {
      ws.addEventListener('open', resolve, { once: true });
      ws.addEventListener('error', () => reject(new Error(`could not open the CDP connection at ${wsUrl}`)), { once: true });
    });
    this.#ws = ws;
    ws.addEventListener('message', (ev) => this.#receive(JSON.parse(String(ev.data))));
    ws.addEventListener('close', () => {
      for (const { reject } of this.#pending.values()) reject(new Error('the CDP connection closed'));
      this.#pending.clear();
    });
    await this.send('Target.setAutoAttach',
      { autoAttach: true, waitForDebuggerOnStart: false, flatten: true, filter: [{ type: 'page' }] });
  }

  send(method, params = {}, sessionId) {
    if (this.#ws?.readyState !== WebSocket.OPEN) return Promise.reject(new Error('the CDP connection is closed'));
    const id = this.#next++;
    this.#ws.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
    return new Promise((resolve, reject) => this.#pending.set(id, { resolve, reject }));
  }

  #receive(msg) {
    if (msg.id !== undefined) {
      const p = this.#pending.get(msg.id);
      this.#pending.delete(msg.id);
      if (msg.error) p?.reject(new Error(msg.error.message)); else p?.resolve(msg.result);
      return;
    }
    const { method, params, sessionId } = msg;
    if (method === 'Target.attachedToTarget' && params.targetInfo.type === 'page') {
      const { targetId } = params.targetInfo;
      this.#sessions.set(targetId, params.sessionId);
      this.#targets.set(params.sessionId, targetId);
      this.send('Page.enable', {}, params.sessionId).catch(() => {});
    } else if (method === 'Target.detachedFromTarget') {
      const targetId = this.#targets.get(params.sessionId);
      this.#targets.delete(params.sessionId);
      if (targetId) { this.#sessions.delete(targetId); this.open.delete(targetId); }
    } else if (method === 'Page.javascriptDialogOpening') {
      const targetId = this.#targets.get(sessionId);
      if (!targetId) return;
      this.open.set(targetId, { type: params.type, message: params.message });
      log(`${params.type} dialog: ${params.message}`);
      this.emit('opened', targetId);
    } else if (method === 'Page.javascriptDialogClosed') {
      const targetId = this.#targets.get(sessionId);
      if (targetId) this.open.delete(targetId);
    }
  }

  async answer(targetId, accept, promptText) {
    const sessionId = this.#sessions.get(targetId);
    if (!sessionId) throw new AdapterError('not-found', 'the tab with the dialog is gone');
    await this.send('Page.handleJavaScriptDialog', { accept: Boolean(accept), ...(promptText !== undefined ? { promptText: String(promptText) } : {}) }, sessionId);
    this.open.delete(targetId);
  }

  close() { try { this.#ws?.close(); } catch { /* already closed */ } }
}

const words = (d) => `${d.type} dialog open: ${d.message}`;

// Run a Stagehand call, but stop waiting as soon as a dialog opens in a tab `which` accepts
// (a page that alerts while loading never finishes loading; a click whose handler alerts does
// not return until the alert is answered). The call then goes on unawaited.
async function guarded(which, fn) {
  let stop;
  const opened = new Promise((resolve) => { stop = (t) => which(t) && resolve(); dialogs.on('opened', stop); });
  const work = fn();
  work.catch(() => {});  // once a dialog wins the race, a later failure of work is ignored
  try { await Promise.race([work, opened]); } finally { dialogs.off('opened', stop); }
}

// ---- the origin relay: how Stagehand's extension reaches a browser it did not launch --------
// The extension's service worker opens its own WebSocket to the browser's DevTools endpoint,
// with an Origin header (chrome-extension://…) that Chromium refuses unless started with
// --remote-allow-origins; the harness's Chromium is not. Stagehand lets the URL the extension
// dials be given (extensionCdpUrl, meant for gateways): it is this relay on 127.0.0.1, which
// drops the Origin header of the upgrade request and then passes the bytes through as they are.
async function originRelay(wsUrl) {
  const target = new URL(wsUrl);
  const sockets = new Set();
  const track = (s) => { sockets.add(s); s.on('close', () => sockets.delete(s)); s.on('error', () => s.destroy()); };
  const server = net.createServer((client) => {
    track(client);
    let head = Buffer.alloc(0);
    const onData = (chunk) => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) { if (head.length > 65536) client.destroy(); return; }
      client.pause();
      client.off('data', onData);
      const lines = head.subarray(0, end).toString('latin1').split('\r\n')
        .filter((l) => !/^origin\s*:/i.test(l))
        .map((l) => (/^host\s*:/i.test(l) ? `Host: ${target.host}` : l));
      const upstream = net.connect(Number(target.port), target.hostname, () => {
        upstream.write(Buffer.concat([Buffer.from(lines.join('\r\n'), 'latin1'), head.subarray(end)]));
        client.pipe(upstream);
        upstream.pipe(client);
      });
      track(upstream);
      upstream.on('close', () => client.destroy());
      client.on('close', () => upstream.destroy());
    };
    client.on('data', onData);
  });
  await new Promise((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  return {
    url: `ws://127.0.0.1:${server.address().port}${target.pathname}`,
    close() { server.close(); for (const s of sockets) s.destroy(); },
  };
}

// ---- browser state -------------------------------------------------------------------------
let browser = null;     // Stagehand's browser handle (launched, or connected to the harness's)
let stagehand = null;   // the Stagehand instance (Stagehand.create: no model)
let relay = null;       // the origin relay, when attached
const dialogs = new Dialogs();
const xpaths = new Map(); // pageId -> Map(ref -> {xpath, role}): every snapshot's xpathMap, latest wins

// The tab the tools act on: Stagehand's own active page (the one act/observe would use; a page
// that opens a popup hands it the popup, context.newPage and setActivePage set it).
async function page() {
  const p = await withTimeout(browser.context.activePage(), 'context.activePage');
  if (!p) throw new AdapterError('not-found', 'no tab is open: use new_tab');
  return p;
}

// url and title of a page. title() runs script in the page, which an open dialog blocks; it is
// read first, since url() is Stagehand's cached value, which title() may wait past a commit.
async function info(p) {
  const title = dialogs.open.has(p.pageId) ? '' : await withTimeout(p.title(), 'page.title', SHORT).catch(() => '');
  const url = await withTimeout(p.url(), 'page.url', SHORT);
  return { url, title };
}

// Answer with the page after an action, and say so when the page has a dialog open.
async function done(p, extra = {}) {
  let shown;
  try { shown = await info(p); } catch (e) {
    if (classify(e).class !== 'not-found') throw e;  // the action closed its own tab (window.close())
    const now = await browser.context.activePage();
    return { ...(now ? await done(now) : {}), text: 'the tab closed', ...extra };
  }
  const d = dialogs.open.get(p.pageId);
  return { page: shown, ...(d ? { text: words(d), dialog: words(d) } : {}), ...extra };
}

// A snapshot line: "  [0-13] link: go", "[0-6] scrollable, html", "[0-9] checkbox: Agree [checked]".
// Every node of the tree is an element but the text runs ("StaticText: User", the words of a
// label or a paragraph, whose XPath is a text() node no action takes): they stay in the tree,
// which the answer's text carries whole, as Stagehand renders it for its model.
const LINE = /^\s*\[([^\]]+)\] (.*)$/;
function elementsOf(tree) {
  const out = [];
  for (const line of tree.split('\n')) {
    const m = LINE.exec(line);
    if (!m) continue;
    const rest = m[2].replace(/(?: \[(?:selected|checked)\])+$/, '');
    const at = rest.indexOf(': ');
    const e = at < 0 ? { ref: m[1], role: rest, name: '' } : { ref: m[1], role: rest.slice(0, at), name: rest.slice(at + 2) };
    if (e.role !== 'StaticText') out.push(e);
  }
  return out;
}

// A ref is a key of an xpathMap some snapshot of this tab gave: the locator is that XPath, as
// Stagehand's own act() builds it. Nothing checks that the document is still the one the ref
// came from: what an old ref reaches is what Stagehand's XPath locator makes of it.
function locate(p, ref) {
  const known = xpaths.get(p.pageId)?.get(String(ref ?? ''));
  if (!known) throw new AdapterError('not-found', `no such ref in this tab: ${JSON.stringify(ref)} (refs are a snapshot's, like "0-13")`);
  return { loc: p.locator(`xpath=${known.xpath}`), role: known.role };
}

// ---- tools -----------------------------------------------------------------------------------
async function tabList() {
  const pages = await withTimeout(browser.context.pages(), 'context.pages');
  const active = await withTimeout(browser.context.activePage(), 'context.activePage');
  const out = [];
  for (const [i, p] of pages.entries()) out.push({ index: i + 1, ...(await info(p)), current: p.pageId === active?.pageId });
  return { pages, tabs: out };
}

async function tabAt(index) {
  const { pages } = await tabList();
  const p = pages[Number(index) - 1];
  if (!Number.isInteger(Number(index)) || !p) throw new AdapterError('not-found', `no tab ${index}: there are ${pages.length}`);
  return p;
}

const TOOLS = {
  async navigate({ url }) {
    const p = await page();
    await guarded((t) => t === p.pageId, () => p.goto(String(url)));
    return done(p);
  },
  async new_tab({ url }) {
    const before = new Set((await browser.context.pages()).map((p) => p.pageId));
    let made = null;
    await guarded((t) => !before.has(t), async () => { made = await browser.context.newPage(url ? String(url) : undefined); });
    // newPage makes the page Stagehand's active one; when a dialog ended the wait early, the
    // new tab is the one Stagehand did not know before
    const p = made ?? (await browser.context.pages()).find((q) => !before.has(q.pageId)) ?? await page();
    return done(p);
  },
  async snapshot() {
    const p = await page();
    const { formattedTree, xpathMap } = await p.snapshot();
    const elements = elementsOf(formattedTree);
    const roles = new Map(elements.map((e) => [e.ref, e.role]));
    const refs = xpaths.get(p.pageId) ?? new Map();
    for (const [ref, xpath] of Object.entries(xpathMap)) refs.set(ref, { xpath, role: roles.get(ref) });
    xpaths.set(p.pageId, refs);
    return { page: await info(p), snapshot: { elements }, text: formattedTree };
  },
  async click({ ref }) {
    const p = await page();
    const { loc } = locate(p, ref);
    await guarded((t) => t === p.pageId, () => loc.click());
    return done(p);
  },
  async type({ ref, text, submit }) {
    const p = await page();
    const { loc, role } = locate(p, ref);
    await guarded((t) => t === p.pageId, async () => {
      // a <select> is shown as role "select" (Stagehand renames its combobox)
      if (role === 'select') await loc.selectOption(String(text));
      else await loc.fill(String(text ?? ''));
      if (submit) await p.keyPress('Enter');
    });
    return done(p);
  },
  async press_key({ key }) {
    const p = await page();
    await guarded((t) => t === p.pageId, () => p.keyPress(String(key)));
    return done(p);
  },
  async go_back() {
    const p = await page();
    // goBack answers null, without an error, when there is no page before (and when the page
    // came back without a network response, from the back/forward cache): nothing to report
    await guarded((t) => t === p.pageId, () => p.goBack());
    return done(p);
  },
  async wait_for({ text, timeout_ms }) {
    const p = await page();
    await guarded((t) => t === p.pageId, () => p.waitForFunction(
      (t) => document.body?.innerText.includes(t), String(text), { timeout: Number(timeout_ms) || WAIT }));
    return done(p);
  },
  async list_tabs() { return { tabs: (await tabList()).tabs }; },
  async select_tab({ index }) {
    const p = await tabAt(index);
    await browser.context.setActivePage(p);
    return done(p, { tabs: (await tabList()).tabs });
  },
  async close_tab({ index }) {
    await (await tabAt(index)).close();
    const now = await browser.context.activePage();
    return { ...(now ? await done(now) : {}), tabs: (await tabList()).tabs };
  },
  // The interaction tools, each one of Stagehand's own calls; what Stagehand answers is passed on.
  async select_option({ ref, values }) {
    const p = await page();
    const { loc } = locate(p, ref);
    let chosen = [];
    await guarded((t) => t === p.pageId, async () => { chosen = await loc.selectOption((values ?? []).map(String)); });
    return done(p, { text: `selected: ${JSON.stringify(chosen)}` });
  },
  async hover({ ref }) {
    const p = await page();
    const { loc } = locate(p, ref);
    await guarded((t) => t === p.pageId, () => loc.hover());
    return done(p);
  },
  async drag({ from, to }) {
    // Its locators have no drag: the page's dragAndDrop between the two elements' centres.
    const p = await page();
    const [a, b] = [locate(p, from).loc, locate(p, to).loc];
    await guarded((t) => t === p.pageId, async () => {
      const [start, end] = [await a.centroid(), await b.centroid()];
      await p.dragAndDrop(start.x, start.y, end.x, end.y);
    });
    return done(p);
  },
  async upload_file({ ref, paths }) {
    const p = await page();
    const { loc } = locate(p, ref);
    await guarded((t) => t === p.pageId, () => loc.setInputFiles((paths ?? []).map(String)));
    return done(p);
  },
  async fill_form({ fields }) {
    const p = await page();
    await guarded((t) => t === p.pageId, async () => {
      for (const { ref, value } of fields ?? []) {
        const { loc, role } = locate(p, ref);
        if (role === 'select') await loc.selectOption([value].flat().map(String));
        else if (role === 'checkbox' || role === 'radio') {
          if ((await loc.isChecked()) !== (value === true || value === 'true')) await loc.click();
        } else await loc.fill(String(value ?? ''));
      }
    });
    return done(p);
  },
  async screenshot({ full_page }) {
    // page.screenshot takes the viewport or the whole page, never one element (see FORMS).
    const p = await page();
    const png = Buffer.from(await withTimeout(p.screenshot({ fullPage: Boolean(full_page) }), 'page.screenshot'));
    return done(p, { text: `a PNG of ${png.length} bytes`, picture: png.toString('base64') });
  },
  async scroll({ ref, by, direction }) {
    // page.scroll is the mouse wheel at a point: at the element's centre (its container
    // scrolls), else at the viewport's. A page's end is a wheel step no page is taller than.
    const p = await page();
    const view = await withTimeout(p.evaluate(() => ({ x: innerWidth / 2, y: innerHeight / 2, height: innerHeight })), 'page.evaluate');
    const at = ref === undefined ? view : await withTimeout(locate(p, ref).loc.centroid(), 'locator.centroid');
    const step = by === 'end' ? 1e6 : view.height;
    await guarded((t) => t === p.pageId, () => p.scroll(at.x, at.y, 0, direction === 'up' ? -step : step));
    return done(p);
  },
  async handle_dialog({ accept, text }) {
    const p = await page();
    const d = dialogs.open.get(p.pageId);
    if (!d) throw new AdapterError('not-found', 'no dialog is open in the current tab');
    await dialogs.answer(p.pageId, accept, text);
    return done(p, { text: `${accept ? 'accepted' : 'dismissed'} ${d.type}: ${d.message}` });
  },
};

// ---- start and the request loop --------------------------------------------------------------
async function wsUrlOf(httpEndpoint) {
  const res = await fetch(`${httpEndpoint.replace(/\/$/, '')}/json/version`);
  const { webSocketDebuggerUrl } = await res.json();
  if (!webSocketDebuggerUrl) throw new Error(`no webSocketDebuggerUrl at ${httpEndpoint}/json/version`);
  return webSocketDebuggerUrl;
}

async function attach(endpoint) {
  const wsUrl = await wsUrlOf(endpoint);
  relay = await originRelay(wsUrl);
  browser = await localBrowser.connect({ cdpUrl: endpoint, extensionCdpUrl: relay.url });
  return wsUrl;
}

async function launch(path) {
  // Stagehand's own launch: its flags, a temporary profile it removes on close, port chosen free.
  browser = await localBrowser.launch({ executablePath: path, headless: true, args: FLAGS });
  return wsUrlOf(browser.cdpUrl);
}

async function start({ chromium: path, cdp_endpoint: endpoint } = {}) {
  let wsUrl;
  if (endpoint) {
    try { wsUrl = await attach(endpoint); } catch (e) {
      // The brief's fallback: a browser of its own (the harness's steps then act elsewhere).
      log(`could not attach to ${endpoint} (${e?.message ?? e}): launching Chromium instead`);
      relay?.close(); relay = null; browser = null;
    }
  }
  if (!browser) wsUrl = await launch(path);
  await dialogs.connect(wsUrl);
  stagehand = await Stagehand.create({ browser, logging: { level: 'warn' } });
  if (!(await browser.context.activePage())) await browser.context.newPage();
  log(`${relay ? 'attached to' : 'launched'} Chromium at ${browser.cdpUrl}; Stagehand ${VERSION}`);
  return { agent: { name: 'stagehand', version: VERSION }, tools: Object.keys(TOOLS), forms: FORMS };
}

// The forms of a call its tools take, where a tool takes some only (the protocol's "forms"):
// its screenshot has no element; its scroll moves by a page or to the end (a page's, or the
// container's under the ref), never to an element.
const FORMS = { screenshot: '!ref', scroll: [['by'], ['direction', '!ref']] };

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
      result = await withTimeout(start(req.start), 'start', START);
    } else {
      const tool = TOOLS[req.tool];
      if (!tool || !Object.hasOwn(TOOLS, req.tool)) throw new Error(`unknown tool: ${req.tool}`);
      if (!stagehand) throw new Error('not started: send {"id":0,"start":{...}} first');
      result = await withTimeout((async () => {
        if (req.tool !== 'handle_dialog' && req.tool !== 'list_tabs') {
          const d = dialogs.open.get((await page()).pageId);
          if (d) throw new AdapterError('dialog', `${d.type} dialog open: ${JSON.stringify(d.message)}: answer it with handle_dialog`);
        }
        return tool(req.args ?? {});
      })(), req.tool);
    }
    send({ id, ok: true, ...result });
  } catch (e) {
    log(`id ${id}:`, e?.stack ?? e);
    const error = classify(e);
    if (req.start) error.class = 'other';  // a failed start is always "other"
    send({ id, ok: false, error });
  }
}

// A stray rejection (a call we stopped waiting for) must not end the adapter.
process.on('unhandledRejection', (e) => log('unhandled:', e?.message ?? e));

// One request at a time, in order. On EOF: finish the queue, then let go of the browser.
let queue = Promise.resolve();
const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
rl.on('line', (line) => { if (line.trim()) queue = queue.then(() => handle(line)); });
rl.on('close', async () => {
  await queue;
  // stagehand.close() ends Stagehand's session in the extension; then a launched browser is
  // closed (Browser.close, its process ended, its temporary profile removed) and an attached
  // one only let go of (disconnect(): the harness's Chromium keeps running).
  await withTimeout(stagehand?.close() ?? Promise.resolve(), 'stagehand.close', 10_000).catch((e) => log(e.message));
  if (browser) {
    const end = relay ? browser.disconnect() : browser.close();
    await withTimeout(end, 'browser close', 10_000).catch((e) => log(e.message));
  }
  dialogs.close();
  relay?.close();
  process.exit(0);
});
