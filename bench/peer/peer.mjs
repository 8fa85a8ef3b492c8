// The Playwright peer of `cargo bench --bench peers`. The benchmark starts it with
// `node peer.mjs <chromium executable>` and drives it over stdin/stdout, one JSON object a
// line. Times are `process.hrtime.bigint()`: CLOCK_MONOTONIC on Linux, the clock the
// benchmark's own times are converted to, so the two processes' times compare directly.
//
//   -> {"op":"nav","url":U}   navigate the page to U (held at the fixture gate) and answer
//   <- {"started":true}       at once, then, once committed,
//   <- {"waitForURL_ns":N,"cdp_ns":N}   when page.waitForURL(U, {waitUntil: 'commit'}) resolved,
//                             and when Page.frameNavigated for U reached this process over CDP
//   -> {"op":"snap","url":U}  load U (untimed), then time locator('body').ariaSnapshot()
//   <- {"ms":F,"bytes":N,"model_text":S}   S: the ref-bearing snapshot Playwright MCP sends
//                             its model (ariaSnapshot in its "ai" mode)
//   -> {"op":"tap","endpoint":E,"target":T}   attach to another Chromium's DevTools endpoint E
//   <- {"tapped":true}        (navguard's, over its own raw CDP WebSocket) and its tab T, and note
//                             every main-frame Page.frameNavigated that arrives there
//   -> {"op":"tapped","url":U}  when that tap saw U commit (waits up to 2 s)
//   <- {"ns":N|null}
//   -> {"op":"quit"}
import { chromium } from "playwright-core";
import { createInterface } from "node:readline";

const executablePath = process.argv[2] || "/usr/bin/chromium";
const now = () => process.hrtime.bigint();
const say = (value) => process.stdout.write(JSON.stringify(value, (_, v) => (typeof v === "bigint" ? Number(v) : v)) + "\n");

const browser = await chromium.launch({ executablePath, headless: true });
const page = await browser.newPage();
const cdp = await page.context().newCDPSession(page);
await cdp.send("Page.enable");
// The browser's own commit, as received over CDP: the main frame's Page.frameNavigated.
const committed = new Map();
cdp.on("Page.frameNavigated", ({ frame }) => {
  if (!frame.parentId) committed.set(frame.url, now());
});
say({ ready: true, version: browser.version() });

// The tap: a raw CDP client on navguard's browser (Node 20: run with --experimental-websocket),
// so the same navigation's commit is seen over CDP and over BiDi.
const tapped = new Map();
async function tap(endpoint, targetId) {
  const ws = new WebSocket(endpoint);
  await new Promise((opened, failed) => {
    ws.onopen = opened;
    ws.onerror = () => failed(new Error(`cannot connect to ${endpoint}`));
  });
  let last = 0;
  const pending = new Map();
  ws.onmessage = (message) => {
    const at = now();
    const msg = JSON.parse(message.data);
    if (msg.id) {
      const { ok, fail } = pending.get(msg.id);
      pending.delete(msg.id);
      if (msg.error) fail(new Error(msg.error.message));
      else ok(msg.result);
    } else if (msg.method === "Page.frameNavigated" && !msg.params.frame.parentId) {
      tapped.set(msg.params.frame.url, at);
    }
  };
  const send = (method, params, sessionId) =>
    new Promise((ok, fail) => {
      const id = ++last;
      pending.set(id, { ok, fail });
      ws.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
    });
  const { sessionId } = await send("Target.attachToTarget", { targetId, flatten: true });
  await send("Page.enable", {}, sessionId);
}

const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  const msg = JSON.parse(line);
  if (msg.op === "nav") {
    const waited = page.waitForURL(msg.url, { waitUntil: "commit", timeout: 60_000 }).then(now);
    page.goto(msg.url, { waitUntil: "commit", timeout: 60_000 }).catch(() => {});
    say({ started: true });
    const at = await waited;
    say({ waitForURL_ns: at, cdp_ns: committed.get(msg.url) ?? null });
    committed.clear();
  } else if (msg.op === "snap") {
    await page.goto(msg.url, { waitUntil: "load" });
    const t = now();
    const snapshot = await page.locator("body").ariaSnapshot();
    const ms = Number(now() - t) / 1e6;
    // What Playwright MCP gives its model: the same tree in its "ai" mode, with a ref on each
    // element (untimed: the time above is the plain snapshot's, as before).
    const forModel = await page.locator("body").ariaSnapshot({ mode: "ai" });
    say({ ms, bytes: Buffer.byteLength(snapshot, "utf8"), model_text: forModel });
  } else if (msg.op === "tap") {
    await tap(msg.endpoint, msg.target);
    say({ tapped: true });
  } else if (msg.op === "tapped") {
    const until = Date.now() + 2000;
    while (!tapped.has(msg.url) && Date.now() < until) await new Promise((r) => setTimeout(r, 5));
    say({ ns: tapped.get(msg.url) ?? null });
    tapped.clear();
  } else if (msg.op === "quit") {
    break;
  }
}
await browser.close();
