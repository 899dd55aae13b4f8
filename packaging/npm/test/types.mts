// SPDX-License-Identifier: MIT
// Type-checked (never run) by packaging/npm/verify with DDB_VERIFY_RECIPES=1:
// the ES module types of the package, as a TypeScript user imports them.
import ddbemu, {
  binaryPath,
  ControlError,
  deleteSnapshot,
  forkForWorker,
  listSnapshots,
  saveSnapshot,
  start,
  workerAccessKey,
  workerId,
  type Server,
  type SnapshotInfo,
  type StartOptions,
  type WorkerFork,
} from "ddbemu";

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

const info: SnapshotInfo = await saveSnapshot("seed", { endpoint, accessKeyId: "seed" });
const items: number = info.items;
// @ts-expect-error the access key whose tables to save is required
await saveSnapshot("seed", { endpoint });
const fork: WorkerFork = await forkForWorker("seed", 1, { endpoint });
const byOptions: WorkerFork = await ddbemu.forkForWorker("seed", { workerId: "gw0", prefix: "t" });
const config: { endpoint: string; region: string; credentials: { accessKeyId: string } } =
  fork.clientConfig;
await byOptions.restore();
const names: string[] = (await listSnapshots({ endpoint })).map((s) => s.name);
await deleteSnapshot("seed");
const key: string = workerAccessKey(workerId({ JEST_WORKER_ID: "1" }), "w");
try {
  await forkForWorker("none");
} catch (err) {
  if (err instanceof ControlError) {
    const status: number = err.status;
    void status;
  }
}
// @ts-expect-error a worker id is a string or a number
await forkForWorker("seed", true);
export { endpoint, port, path, items, config, names, key };
