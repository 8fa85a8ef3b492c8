// A stand-in for the Chromium that the reference Puppeteer MCP server launches: it hands the
// server the harness's own Chromium instead.
//
//   chrome [whatever arguments Puppeteer gives]     (with NAVGUARD_DEVTOOLS set)
//
// Why: the server has no way to attach to a running browser; it only calls puppeteer.launch(),
// which starts the executable it is given and reads the browser's DevTools socket from the line
// `DevTools listening on ws://…` that Chromium writes on stderr. This writes that line, naming
// the socket of NAVGUARD_DEVTOOLS (the /json/version address of agents/agent-infra/start.mjs's
// relay of the harness's browser, which hides the harness's own BiDi session from Puppeteer),
// then waits until Puppeteer ends it (when it closes the browser) or the server that started it
// dies (./chrome). Puppeteer's own arguments (a profile folder, a port) are for a browser it
// would start, and are not used.
const DEADLINE_MS = 10_000;

const version = process.env.NAVGUARD_DEVTOOLS ?? '';
let socket;
try {
  const url = new URL(version);
  if (url.protocol !== 'http:' || !url.hostname.startsWith('127.')) throw new Error('not an http address on loopback');
  const answer = await fetch(url, { signal: AbortSignal.timeout(DEADLINE_MS) });
  socket = (await answer.json()).webSocketDebuggerUrl;
  if (typeof socket !== 'string' || !socket.startsWith('ws://127.')) throw new Error(`no socket on loopback in ${JSON.stringify(socket)}`);
} catch (e) {
  console.error(`stand-in chrome: cannot read the browser's socket from NAVGUARD_DEVTOOLS=${version}: ${e.message}`);
  process.exit(1);
}
console.error(`DevTools listening on ${socket}`);
// Nothing else is left to do: a timer that never fires keeps the process until it is ended.
setInterval(() => {}, 2 ** 30);
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(signal, () => process.exit(0));
