// Starts firefox-devtools-mcp on the harness's own Firefox session.
//
//   node start.mjs <webdriver_session> <bidi_session> -- <the server's command and args>
//
// The server attaches to a running Firefox with --connect-existing, through a geckodriver it
// finds on its PATH: this puts navguard's stand-in (bin/geckodriver, geckodriver.mjs) first on
// it, with the session's two URLs in its environment. The server checks that something listens
// on the Marionette port it is given before it starts that geckodriver; the stand-in never uses
// the port, so it is given the port of the session's BiDi socket, which Firefox holds open.
// The server is a child of this process, with its stdio: this ends when it ends, with its code.
import { spawn } from 'node:child_process';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const [webdriverSession, bidiSession, dashes, ...command] = process.argv.slice(2);
if (bidiSession === undefined || dashes !== '--' || command.length === 0) {
  console.error('usage: node start.mjs <webdriver_session> <bidi_session> -- <command> [args…]');
  process.exit(2);
}
let marionettePort;
try {
  const bidi = new URL(bidiSession);
  if (!bidi.hostname.startsWith('127.')) throw new Error('not on loopback');
  marionettePort = bidi.port;
} catch (e) {
  console.error(`start.mjs: ${bidiSession} is not the session's BiDi socket on loopback (${e.message})`);
  process.exit(2);
}
const here = dirname(fileURLToPath(import.meta.url));
const env = {
  ...process.env,
  PATH: [join(here, 'bin'), process.env.PATH ?? ''].join(delimiter),
  NAVGUARD_WEBDRIVER_SESSION: webdriverSession,
  NAVGUARD_BIDI_SESSION: bidiSession,
};
const [program, ...args] = command;
const server = spawn(program, [...args, '--connect-existing', '--marionette-port', marionettePort], { env, stdio: 'inherit' });
server.on('error', (e) => {
  console.error(`start.mjs: cannot start ${program}: ${e.message}`);
  process.exit(1);
});
server.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => server.kill(signal));
