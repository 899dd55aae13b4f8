// SPDX-License-Identifier: MIT
//
// index.js - start a ddbemu server for tests and stop it.
//
// start() runs the binary with --port 0 (the kernel picks a free port, so
// parallel runs never collide), learns the port from the one line the server
// prints once it listens ("ddbemu listening on http://HOST:PORT"), then waits
// until GET / answers before it resolves. The server is a child process: it is
// stopped with SIGTERM by stop(), and killed when this Node process exits
// (normally, or through process.exit()), so that a test run that forgets
// stop() leaves no server behind.
"use strict";

const { spawn } = require("node:child_process");
const { binaryPath } = require("./binary.js");
const {
  ControlError,
  deleteSnapshot,
  forkForWorker,
  listSnapshots,
  saveSnapshot,
  workerAccessKey,
  workerId,
} = require("./workers.js");

// The whole line, newline included: a chunk may end in the middle of the port.
const LISTENING = /^ddbemu listening on (http:\/\/\S+)\n/m;
const STDERR_KEPT = 16 * 1024; // the tail of stderr quoted in error messages
const STOP_GRACE_MS = 10000; // SIGKILL after this long without exiting

// Servers not stopped yet; one "exit" listener kills them all (a listener per
// server would trip Node's MaxListenersExceededWarning past ten servers).
const running = new Set();
let exitHookInstalled = false;

function killRunning() {
  for (const child of running) child.kill("SIGKILL");
}

function track(child) {
  if (!exitHookInstalled) {
    process.on("exit", killRunning);
    exitHookInstalled = true;
  }
  running.add(child);
}

function buildArgs(options) {
  const args = ["--host", options.host ?? "127.0.0.1", "--port", String(options.port ?? 0)];
  if (options.sharedDb) args.push("--shared-db");
  if (options.dbPath) args.push("--db-path", String(options.dbPath));
  for (const arg of options.args ?? []) args.push(String(arg));
  return args;
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function answers(endpoint) {
  try {
    const response = await fetch(endpoint + "/", { signal: AbortSignal.timeout(1000) });
    await response.arrayBuffer();
    return true;
  } catch {
    return false;
  }
}

/**
 * Starts a server; resolves to { endpoint, host, port, pid, stop() } once it
 * answers. See index.d.ts for the options.
 */
async function start(options = {}) {
  const binary = options.binary ?? binaryPath();
  const timeoutMs = options.startupTimeoutMs ?? 30000;
  const child = spawn(binary, buildArgs(options), {
    stdio: ["ignore", "ignore", "pipe"],
    env: options.env ?? process.env,
  });
  let stderr = "";
  let endpoint = null;
  let spawnError = null;
  let exited = false;
  const exitPromise = new Promise((resolve) => {
    // "close", not "exit": the last of stderr has been read by then.
    child.on("close", (code, signal) => {
      exited = true;
      resolve({ code, signal });
    });
  });
  child.on("error", (err) => {
    spawnError = err;
  });
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (chunk) => {
    stderr = (stderr + chunk).slice(-STDERR_KEPT);
    if (!endpoint) {
      const match = LISTENING.exec(stderr);
      if (match) endpoint = match[1];
    }
    if (options.onStderr) options.onStderr(chunk);
  });
  track(child);

  const fail = async (why) => {
    running.delete(child);
    if (!exited && !spawnError) {
      child.kill("SIGKILL");
      await exitPromise;
    }
    throw new Error(`ddbemu (${binary}) ${why}${stderr ? `:\n${stderr.trimEnd()}` : ""}`);
  };

  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (spawnError) return fail(`could not be started: ${spawnError.message}`);
    if (exited) return fail(`exited with status ${child.exitCode ?? child.signalCode}`);
    if (endpoint && (await answers(endpoint))) break;
    if (Date.now() > deadline) return fail(`did not answer within ${timeoutMs} ms`);
    await sleep(20);
  }

  const url = new URL(endpoint);
  let stopping = null;
  const server = {
    endpoint,
    host: url.hostname.replace(/^\[|\]$/g, ""),
    port: Number(url.port),
    pid: child.pid,
    stop() {
      if (!stopping) {
        stopping = (async () => {
          running.delete(child);
          if (exited) return;
          child.kill("SIGTERM");
          const timer = setTimeout(() => child.kill("SIGKILL"), STOP_GRACE_MS);
          await exitPromise;
          clearTimeout(timer);
        })();
      }
      return stopping;
    },
  };
  return server;
}

module.exports = {
  start,
  binaryPath,
  ControlError,
  deleteSnapshot,
  forkForWorker,
  listSnapshots,
  saveSnapshot,
  workerAccessKey,
  workerId,
};
