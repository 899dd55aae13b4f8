// SPDX-License-Identifier: MIT
//
// workers.js - one seed for every parallel test worker, through the server's
// snapshot and fork routes (docs/snapshots.md in the ddbemu repository).
//
// ddbemu keeps one set of tables per access key and region. A global setup
// fills one access key and saves it as a snapshot (saveSnapshot); each worker
// then forks the snapshot into an access key of its own, derived from the
// runner's worker id (forkForWorker), and builds its SDK client on that key:
// every worker starts from the seed and sees only its own writes. A fork
// replaces what the key held, so forking again (restore()) puts the seed back.
//
// The routes are control routes: served when the server listens on a loopback
// address (the default), or when it was started with --control.
"use strict";

const DEFAULT_REGION = "us-east-1";
const DEFAULT_PREFIX = "ddbemu";
const SECRET_ACCESS_KEY = "ddbemu"; // never checked unless the server runs with --credentials
// An access key travels in the SigV4 Credential (KEY/date/region/...): these
// characters need no quoting there; 128 is AWS's longest access key id.
const KEY_CHARS = /^[A-Za-z0-9._-]{1,128}$/;

class ControlError extends Error {
  constructor(status, message) {
    super(`ddbemu control route: ${status} ${message}`);
    this.name = "ControlError";
    this.status = status;
    this.serverMessage = message;
  }
}

function endpointOf(options) {
  const endpoint = options?.endpoint ?? process.env.DDBEMU_ENDPOINT;
  if (!endpoint) {
    throw new Error("no ddbemu endpoint: pass { endpoint } or set DDBEMU_ENDPOINT");
  }
  return endpoint.replace(/\/+$/, "");
}

// node:http with no agent rather than fetch(): one connection per call,
// closed with the answer, so a control call leaves nothing open behind it
// (fetch keeps idle connections in a pool shared with the test's own code).
function request(url, method, body) {
  const { request: send } = require(url.protocol === "https:" ? "node:https" : "node:http");
  return new Promise((resolve, reject) => {
    const req = send(url, { method, agent: false }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode, text }));
      res.on("error", reject);
    });
    req.on("error", reject);
    if (body !== undefined) req.setHeader("content-type", "application/json");
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

async function control(endpoint, method, path, body) {
  const url = new URL(`${endpoint}/ddbemu/${path}`);
  let response;
  try {
    response = await request(url, method, body);
  } catch (err) {
    throw new Error(`ddbemu control route ${method} ${url}: ${err.message}`);
  }
  let answer;
  try {
    answer = response.text ? JSON.parse(response.text) : {};
  } catch {
    answer = { error: response.text };
  }
  if (response.status < 200 || response.status > 299) {
    throw new ControlError(response.status, answer.error ?? response.text);
  }
  return answer;
}

/** The id of this test worker: Jest's, Vitest's, else this process's pid (node --test runs
 * each test file in a process of its own, so the pid tells files running together apart). */
function workerId(env = process.env) {
  return env.JEST_WORKER_ID ?? env.VITEST_POOL_ID ?? env.VITEST_WORKER_ID ?? String(process.pid);
}

/** The access key of a worker: prefix + worker id ("ddbemu1" for Jest's worker 1). */
function workerAccessKey(id = workerId(), prefix = DEFAULT_PREFIX) {
  const key = `${prefix}${id}`;
  if (String(id) === "" || !KEY_CHARS.test(key)) {
    throw new RangeError(
      `worker id ${JSON.stringify(id)} with prefix ${JSON.stringify(prefix)} does not make ` +
        "an access key of 1 to 128 letters, digits, '.', '_' or '-'",
    );
  }
  return key;
}

async function saveSnapshot(name, options = {}) {
  if (!options.accessKeyId) throw new TypeError("saveSnapshot: options.accessKeyId is required");
  return control(endpointOf(options), "POST", "snapshots", {
    name,
    access_key: options.accessKeyId,
    region: options.region ?? DEFAULT_REGION,
  });
}

async function deleteSnapshot(name, options = {}) {
  await control(endpointOf(options), "DELETE", `snapshots/${encodeURIComponent(name)}`);
}

async function listSnapshots(options = {}) {
  return (await control(endpointOf(options), "GET", "snapshots")).snapshots;
}

async function forkSnapshot(endpoint, snapshot, accessKeyId) {
  const path = `snapshots/${encodeURIComponent(snapshot)}/fork`;
  const body = { to_access_key: accessKeyId, replace: true };
  const answer = await control(endpoint, "POST", path, body);
  return answer.namespace.slice(answer.namespace.lastIndexOf("/") + 1); // "key/region"
}

/**
 * Forks `snapshot` into this worker's own access key (replacing what it held)
 * and resolves to the credentials and client configuration for it. Called as
 * forkForWorker(snapshot, workerId?, options?) or forkForWorker(snapshot, options?).
 */
async function forkForWorker(snapshot, idOrOptions, maybeOptions) {
  const byId = typeof idOrOptions === "string" || typeof idOrOptions === "number";
  const options = (byId ? maybeOptions : idOrOptions) ?? {};
  const id = byId ? idOrOptions : (options.workerId ?? workerId());
  const endpoint = endpointOf(options);
  const accessKeyId = workerAccessKey(id, options.prefix ?? DEFAULT_PREFIX);
  const secretAccessKey = options.secretAccessKey ?? SECRET_ACCESS_KEY;
  const region = await forkSnapshot(endpoint, snapshot, accessKeyId);
  const credentials = { accessKeyId, secretAccessKey };
  return {
    endpoint,
    region, // the snapshot's: a fork keeps the region it was saved from
    snapshot,
    workerId: String(id),
    accessKeyId,
    secretAccessKey,
    credentials,
    clientConfig: { endpoint, region, credentials },
    async restore() {
      await forkSnapshot(endpoint, snapshot, accessKeyId);
    },
  };
}

module.exports = {
  ControlError,
  deleteSnapshot,
  forkForWorker,
  listSnapshots,
  saveSnapshot,
  workerAccessKey,
  workerId,
};
