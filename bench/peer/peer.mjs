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
//   <- {"ms":F,"bytes":N}
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
    say({ ms, bytes: Buffer.byteLength(snapshot, "utf8") });
  } else if (msg.op === "quit") {
    break;
  }
}
await browser.close();
