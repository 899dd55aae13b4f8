// SPDX-License-Identifier: MIT
//
// ddbemu.mjs - start the built ddbemu binary for a node --test file, as
// conformance/conftest.py does for pytest: a free loopback port, dummy
// credentials, stopped with SIGTERM at the end. DDBEMU_BIN names the binary
// (default: build/emulator/ddbemu from the repository root).

import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

export const credentials = { accessKeyId: "ddbemuJsTestKey", secretAccessKey: "secret" };
export const region = "us-east-1";

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** Starts ddbemu with extra flags; resolves to { endpoint, control(path, body), stop() }. */
export async function startDdbemu(...flags) {
  const bin = process.env.DDBEMU_BIN || join(repoRoot, "build", "emulator", "ddbemu");
  const port = await freePort();
  const child = spawn(bin, ["--host", "127.0.0.1", "--port", String(port), ...flags], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (d) => (stderr += d));
  const endpoint = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    try {
      await fetch(endpoint + "/");
      break;
    } catch (err) {
      if (child.exitCode !== null || i > 300) throw new Error(`ddbemu did not start: ${stderr}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  return {
    endpoint,
    async control(path, body) {
      const resp = await fetch(`${endpoint}/ddbemu/${path}`, {
        method: body === undefined ? "GET" : "POST",
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return resp.json();
    },
    stop() {
      return new Promise((resolve) => {
        child.on("exit", resolve);
        child.kill("SIGTERM");
      });
    },
  };
}
