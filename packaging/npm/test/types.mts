// SPDX-License-Identifier: MIT
// Type-checked (never run) by packaging/npm/verify with DDB_VERIFY_RECIPES=1:
// the ES module types of the package, as a TypeScript user imports them.
import ddbemu, { binaryPath, start, type Server, type StartOptions } from "ddbemu";

const options: StartOptions = {
  sharedDb: true,
  dbPath: "/tmp/tables",
  args: ["--log-level", "debug"],
  startupTimeoutMs: 5000,
  onStderr: (chunk: string) => void chunk,
};
const server: Server = await start(options);
const endpoint: string = server.endpoint;
const port: number = server.port;
await server.stop();
const path: string = binaryPath() + ddbemu.binaryPath();
// @ts-expect-error the port is a number
await start({ port: "8000" });
export { endpoint, port, path };
