// SPDX-License-Identifier: MIT
// The ES module face of index.js (one implementation for both).
import api from "./index.js";

export const {
  start,
  binaryPath,
  ControlError,
  deleteSnapshot,
  forkForWorker,
  listSnapshots,
  saveSnapshot,
  workerAccessKey,
  workerId,
} = api;
export default api;
