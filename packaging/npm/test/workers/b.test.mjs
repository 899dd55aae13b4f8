// SPDX-License-Identifier: MIT
// One of two test files run at the same time by node --test (run.mjs).
import { test } from "node:test";
import { checkWorker } from "./worker-check.mjs";

test("file b: the seed and its own writes only", () => checkWorker("b"));
