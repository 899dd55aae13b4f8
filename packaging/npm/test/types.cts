// SPDX-License-Identifier: MIT
// Type-checked (never run): the CommonJS types, as require("ddbemu") gives them.
import ddbemu = require("ddbemu");

export const pending: Promise<ddbemu.Server> = ddbemu.start({ port: 0, host: "127.0.0.1" });
export const forked: Promise<ddbemu.WorkerFork> = ddbemu.forkForWorker("seed", "gw0", {
  endpoint: "http://127.0.0.1:8000",
});
export const id: string = ddbemu.workerAccessKey(ddbemu.workerId());
