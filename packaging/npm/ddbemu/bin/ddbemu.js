#!/usr/bin/env node
// SPDX-License-Identifier: MIT
//
// The `ddbemu` command (npx ddbemu ...): runs the binary for this platform
// with the same arguments, standard streams and exit status. Signals sent to
// this process (SIGTERM from a process manager, SIGINT, SIGHUP) are passed on
// to the server so that it never outlives its launcher.
"use strict";

const { spawn } = require("node:child_process");
const { binaryPath } = require("../lib/binary.js");

let binary;
try {
  binary = binaryPath();
} catch (err) {
  process.stderr.write(`ddbemu: ${err.message}\n`);
  process.exit(1);
}

const child = spawn(binary, process.argv.slice(2), { stdio: "inherit" });
const forwarded = ["SIGINT", "SIGTERM", "SIGHUP"];
for (const signal of forwarded) {
  process.on(signal, () => child.kill(signal));
}
child.on("error", (err) => {
  process.stderr.write(`ddbemu: cannot run ${binary}: ${err.message}\n`);
  process.exit(1);
});
child.on("exit", (code, signal) => {
  if (signal) {
    // Die of the same signal, so the caller sees what the server saw.
    for (const s of forwarded) process.removeAllListeners(s);
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code);
});
