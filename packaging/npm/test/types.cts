// SPDX-License-Identifier: MIT
// Type-checked (never run): the CommonJS types, as require("ddbemu") gives them.
import ddbemu = require("ddbemu");

export const pending: Promise<ddbemu.Server> = ddbemu.start({ port: 0, host: "127.0.0.1" });
