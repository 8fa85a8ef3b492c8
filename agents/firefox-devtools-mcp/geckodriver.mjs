// A stand-in for geckodriver that hands firefox-devtools-mcp the harness's own Firefox session.
//
//   geckodriver --connect-existing --marionette-port=N --port=P     (as Selenium starts it)
//
// Why: firefox-devtools-mcp attaches to a running Firefox only by starting a geckodriver of its
// own on Firefox's Marionette port, and Firefox takes one Marionette client: the harness's
// geckodriver already is that client. It finds geckodriver on its PATH first, so start.mjs puts
// this one there.
//
// What it does, on 127.0.0.1:P only: GET /status is ready; POST /session answers with the
// harness's session (its id, from NAVGUARD_WEBDRIVER_SESSION, and its BiDi socket, from
// NAVGUARD_BIDI_SESSION, which Firefox lets a second client join); DELETE /session/<id> is
// answered done and ends nothing (the harness ends its own browser); every other command is
// passed as it is to the harness's geckodriver, and its answer back, within a deadline. The
// Marionette port is not used.
import http from 'node:http';

const FORWARD_DEADLINE_MS = 60_000;

const sessionUrl = process.env.NAVGUARD_WEBDRIVER_SESSION ?? '';
const bidiUrl = process.env.NAVGUARD_BIDI_SESSION ?? '';
const session = parsedSession(sessionUrl);
const port = portArgument(process.argv.slice(2));
if (session === null || port === null || bidiUrl === '') {
  console.error('geckodriver (navguard stand-in): needs --port=P and NAVGUARD_WEBDRIVER_SESSION, ' +
    'NAVGUARD_BIDI_SESSION (set by agents/firefox-devtools-mcp/start.mjs)');
  process.exit(2);
}

/** `http://127.0.0.1:PORT/session/ID` as its origin and id; null unless it is one on loopback. */
function parsedSession(text) {
  try {
    const url = new URL(text);
    const id = /^\/session\/([^/]+)\/?$/.exec(url.pathname)?.[1];
    if (url.protocol !== 'http:' || !url.hostname.startsWith('127.') || id === undefined) return null;
    return { origin: url.origin, id };
  } catch {
    return null;
  }
}

/** The port Selenium gives (`--port=P` or `--port P`). */
function portArgument(args) {
  for (const [i, arg] of args.entries()) {
    const value = arg.startsWith('--port=') ? arg.slice('--port='.length) : arg === '--port' ? args[i + 1] : null;
    if (value != null && /^\d+$/.test(value)) return Number(value);
  }
  return null;
}

function answer(response, status, value) {
  const body = JSON.stringify({ value });
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  response.end(body);
}

function failure(response, status, error, message) {
  answer(response, status, { error, message, stacktrace: '' });
}

/** The new session's answer: the harness's session, with what a client reads of it. */
function sessionAnswer() {
  return {
    sessionId: session.id,
    capabilities: {
      browserName: 'firefox',
      platformName: 'linux',
      acceptInsecureCerts: false,
      unhandledPromptBehavior: { default: 'ignore' },
      webSocketUrl: bidiUrl,
    },
  };
}

/** Passes the request to the harness's geckodriver and its answer back, within the deadline. */
function forward(request, body, response) {
  const outgoing = http.request(`${session.origin}${request.url}`, {
    method: request.method,
    headers: { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length },
    timeout: FORWARD_DEADLINE_MS,
  }, (answered) => {
    response.writeHead(answered.statusCode ?? 500, { 'content-type': answered.headers['content-type'] ?? 'application/json' });
    answered.pipe(response);
  });
  outgoing.on('timeout', () => outgoing.destroy(new Error(`no answer within ${FORWARD_DEADLINE_MS} ms`)));
  outgoing.on('error', (e) => {
    if (!response.headersSent) failure(response, 500, 'unknown error', `the harness's geckodriver: ${e.message}`);
    else response.destroy();
  });
  outgoing.end(body);
}

const server = http.createServer((request, response) => {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    const path = new URL(request.url ?? '/', 'http://127.0.0.1').pathname.replace(/\/$/, '');
    const ours = `/session/${session.id}`;
    if (request.method === 'GET' && path === '/status') {
      answer(response, 200, { ready: true, message: "navguard's stand-in, on the harness's session" });
    } else if (request.method === 'POST' && path === '/session') {
      answer(response, 200, sessionAnswer());
    } else if (request.method === 'DELETE' && path === ours) {
      answer(response, 200, null);
    } else if (path === ours || path.startsWith(`${ours}/`)) {
      forward(request, Buffer.concat(chunks), response);
    } else {
      failure(response, 404, 'invalid session id', `no session at ${path} (this stand-in serves ${ours})`);
    }
  });
});
server.on('error', (e) => {
  console.error(`geckodriver (navguard stand-in): cannot listen on 127.0.0.1:${port}: ${e.message}`);
  process.exit(1);
});
server.listen(port, '127.0.0.1');
for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => process.exit(0));
