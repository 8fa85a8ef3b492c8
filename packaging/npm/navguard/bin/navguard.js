#!/usr/bin/env node
// The `navguard` command of the npm package: it runs the binary of the per-platform package npm
// installed beside this one (as esbuild and biome ship theirs), passing the arguments, stdin,
// stdout and stderr through, and ends as the binary ended. Signals sent to this launcher (an MCP
// client ending its server, Ctrl-C) are passed on, so no binary outlives it that way.
"use strict";

const { spawn } = require("node:child_process");

// Each platform with a build, and the package that carries it.
const PLATFORMS = { "linux x64": "@navguard/linux-x64" };

/** The binary's path, or a one-line reason and exit 2 (navguard's code for "could not start"). */
function binary() {
  if (process.env.NAVGUARD_BINARY) return process.env.NAVGUARD_BINARY;
  const platform = `${process.platform} ${process.arch}`;
  const pkg = PLATFORMS[platform];
  if (!pkg) {
    fail(`there is no navguard build for ${platform} (builds: ${Object.keys(PLATFORMS).join(", ")}); ` +
      "build it with `cargo install navguard-harness` and set NAVGUARD_BINARY to it");
  }
  try {
    return require.resolve(`${pkg}/bin/navguard`);
  } catch {
    fail(`the package ${pkg} is not installed beside navguard: install navguard again without ` +
      "--no-optional (or --omit=optional), which leaves the binary out");
  }
}

function fail(message) {
  process.stderr.write(`navguard: ${message}\n`);
  process.exit(2);
}

const child = spawn(binary(), process.argv.slice(2), { stdio: "inherit" });
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(signal, () => child.kill(signal));
}
child.on("error", (error) => fail(`the binary could not be started (${error.message})`));
child.on("exit", (code, signal) => {
  if (signal) {
    // Ended by a signal: end the same way, so the caller sees what the binary saw.
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  } else {
    process.exit(code ?? 1);
  }
});
