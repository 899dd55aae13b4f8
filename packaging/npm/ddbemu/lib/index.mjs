// SPDX-License-Identifier: MIT
// The ES module face of index.js (one implementation for both).
import api from "./index.js";

export const { start, binaryPath } = api;
export default api;
