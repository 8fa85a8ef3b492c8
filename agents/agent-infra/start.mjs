// Starts agent-infra's browser MCP server attached to the harness's Chromium through a relay of
// the browser's DevTools socket on 127.0.0.1, which hides the harness's own sessions from it.
//
//   node start.mjs <cdp_endpoint> -- <the server's command and args, "{relay}" where its
//                                     --cdp-endpoint goes>
//
// Why: the harness's Chromium is driven over WebDriver BiDi, and the BiDi mapper's session
// shows in the browser's target list as a second target of type "browser" whose sessions have
// no Browser domain. The server's Puppeteer takes the first "browser" target it lists (they are
// listed by id, a random UUID) and sends it Browser.setDownloadBehavior before its first call:
// in about one browser of four that target is the mapper's, and every call then fails with
// "'Browser.setDownloadBehavior' wasn't found". A Chromium the user started has no such target.
// The relay finds the targets of type "browser" that answer no Browser.getVersion, and leaves
// them out of what the browser tells the server (its target events and Target.getTargets);
// every other message passes as it is. Its /json/version names the relay's own socket.
// The server is a child of this process, with its stdio: it ends when the server ends.
import http from 'node:http';
import { spawn } from 'node:child_process';
import WebSocket, { WebSocketServer } from 'ws';

const [endpoint, dashes, ...command] = process.argv.slice(2);
if (endpoint === undefined || dashes !== '--' || command.length === 0) {
  console.error('usage: node start.mjs <cdp_endpoint or ""> -- <command> [args…]');
  process.exit(2);
}
const DEADLINE_MS = 10_000;

/** Sends CDP `method` on `socket` and waits for its answer, within the deadline. */
function caller(socket) {
  let last = 0;
  const waiting = new Map();
  socket.on('message', (data) => {
    const message = parsed(data);
    const done = waiting.get(message?.id);
    if (done) {
      waiting.delete(message.id);
      done(message);
    }
  });
  // A socket that closes fails what still waits on it, at once.
  socket.on('close', () => {
    for (const done of waiting.values()) done(null);
    waiting.clear();
  });
  return (method, params = {}, sessionId) => new Promise((resolve, reject) => {
    const id = ++last;
    const timer = setTimeout(() => reject(new Error(`${method}: no answer within ${DEADLINE_MS} ms`)), DEADLINE_MS);
    waiting.set(id, (message) => {
      clearTimeout(timer);
      if (message) resolve(message); else reject(new Error(`${method}: the browser closed its socket`));
    });
    socket.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
  });
}

/** A CDP message as JSON; undefined for a frame that is not (CDP sends none such). */
function parsed(data) {
  try {
    return JSON.parse(data.toString());
  } catch {
    return undefined;
  }
}

/** The ids of the targets of type "browser" whose sessions have no Browser domain. */
async function hiddenTargets(browserSocketUrl) {
  const socket = new WebSocket(browserSocketUrl, { perMessageDeflate: false, handshakeTimeout: DEADLINE_MS });
  socket.on('error', () => {});
  try {
    await new Promise((resolve, reject) => { socket.once('open', resolve); socket.once('error', reject); });
    return await sessionsWithoutBrowser(socket);
  } finally {
    socket.close();
  }
}

async function sessionsWithoutBrowser(socket) {
  const call = caller(socket);
  const hidden = new Set();
  // The browser's own sessions are announced only to a client that discovers targets with an
  // empty filter (every type): the list Puppeteer builds, and takes the first "browser" of.
  const targets = [];
  socket.on('message', (data) => {
    const message = parsed(data);
    if (message?.method === 'Target.targetCreated') targets.push(message.params.targetInfo);
  });
  await call('Target.setDiscoverTargets', { discover: true, filter: [{}] });
  for (const { targetId, type } of targets) {
    if (type !== 'browser') continue;
    const attached = await call('Target.attachToTarget', { targetId, flatten: true });
    const sessionId = attached.result?.sessionId;
    if (!sessionId) continue;
    const version = await call('Browser.getVersion', {}, sessionId);
    if (version.error) hidden.add(targetId);
    await call('Target.detachFromTarget', { sessionId });
  }
  console.error(`start.mjs: hiding ${hidden.size} of the browser's ${targets.filter((t) => t.type === 'browser').length} sessions from the server`);
  return hidden;
}

/** Whether a message from the browser is about a hidden target (an event to leave out). */
function aboutHidden(message, hidden) {
  const params = message.params ?? {};
  const id = params.targetInfo?.targetId ?? params.targetId;
  return message.method?.startsWith('Target.') && id !== undefined && hidden.has(id);
}

/** Runs the server with `relay` as its endpoint, and ends as it ends. */
function serve(relay) {
  const child = spawn(command[0], command.slice(1).map((word) => word.replaceAll('{relay}', relay)), { stdio: 'inherit' });
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

// Where the browser cannot be reached (navguard's check before a run points it at a port where
// nothing listens: it only lists the server's tools), the server is given the endpoint itself:
// it attaches at its first call, and says so if that fails.
// A browser that can be reached but whose sessions cannot be told apart ends the start: the
// server would fail on it one time in four.
let version;
try {
  version = await (await fetch(`${endpoint}/json/version`, { signal: AbortSignal.timeout(DEADLINE_MS) })).json();
} catch (error) {
  console.error(`start.mjs: no relay (${error.message}): the server is given ${endpoint} itself`);
  serve(`${endpoint}/json/version`);
}
if (version) {
  try {
    await relayed(version);
  } catch (error) {
    console.error(`start.mjs: the browser's sessions could not be told apart: ${error.message}`);
    process.exit(1);
  }
}

async function relayed(version) {
  const browserSocketUrl = version.webSocketDebuggerUrl;
  const hidden = await hiddenTargets(browserSocketUrl);
  const path = new URL(browserSocketUrl).pathname;

  const server = http.createServer((request, response) => {
    if (request.url === '/json/version') {
      const { port } = server.address();
      const answer = { ...version, webSocketDebuggerUrl: `ws://127.0.0.1:${port}${path}` };
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(answer));
    } else {
      response.writeHead(404);
      response.end();
    }
  });
  const sockets = new WebSocketServer({ server, perMessageDeflate: false, maxPayload: 256 << 20 });
  sockets.on('connection', (client) => {
    const browser = new WebSocket(browserSocketUrl, { perMessageDeflate: false, maxPayload: 256 << 20 });
    // The client's Target.getTargets calls, by session and id, to find their answers. Only a
    // message that can be about targets is parsed: the rest (a page's DOM, a screenshot) pass as
    // they came, so that the relay adds no more than a copy to the server's calls.
    const listing = new Set();
    const queued = [];
    browser.on('open', () => { for (const data of queued.splice(0)) browser.send(data); });
    client.on('message', (data) => {
      const text = data.toString();
      const message = text.includes('Target.getTargets') ? parsed(text) : undefined;
      if (message?.method === 'Target.getTargets') listing.add(`${message.sessionId ?? ''} ${message.id}`);
      if (browser.readyState === WebSocket.OPEN) browser.send(text); else queued.push(text);
    });
    browser.on('message', (data) => {
      const text = data.toString();
      const aboutTargets = text.includes('"Target.') || (listing.size > 0 && text.includes('"targetInfos"'));
      const message = aboutTargets ? parsed(text) : undefined;
      if (message === undefined) {
        client.send(text);
        return;
      }
      const key = `${message.sessionId ?? ''} ${message.id}`;
      if (message.id !== undefined && listing.delete(key) && message.result?.targetInfos) {
        message.result.targetInfos = message.result.targetInfos.filter((t) => !hidden.has(t.targetId));
        client.send(JSON.stringify(message));
        return;
      }
      if (message.id === undefined && aboutHidden(message, hidden)) return;
      client.send(text);
    });
    const end = () => {
      listing.clear();
      queued.length = 0;
      client.close();
      browser.close();
    };
    client.on('close', end);
    browser.on('close', end);
    client.on('error', end);
    browser.on('error', end);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  serve(`http://127.0.0.1:${server.address().port}/json/version`);
}
