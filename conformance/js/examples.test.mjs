// SPDX-License-Identifier: MIT
//
// The seed-design examples of docs/examples/ (docs/seed-designs.md), each run
// as a user runs it - `node docs/examples/NAME.mjs --endpoint URL` - against
// one ddbemu: each must finish with status 0 (the examples check their own
// results) and print what the docs page shows. The last checks read the
// access-pattern report on ddbemu's control interface (emulator-only).

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { dirname, join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

import { startDdbemu } from "./ddbemu.mjs";

const examples = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "docs", "examples");
let emu;

before(async () => {
  emu = await startDdbemu();
});

after(async () => {
  await emu?.stop();
});

async function runExample(name) {
  const { stdout } = await promisify(execFile)(process.execPath, [join(examples, `${name}.mjs`), "--endpoint", emu.endpoint], {
    env: { ...process.env, NODE_NO_WARNINGS: "1", AWS_ACCESS_KEY_ID: "", AWS_REGION: "us-east-1" },
  });
  return stdout;
}

test("chat.mjs: every access pattern, BatchGet in chunks of 100, 101 keys refused", async () => {
  const out = await runExample("chat");
  assert.match(out, /^1\. CONNECTION#abc123 belongs to user-1$/m);
  assert.match(out, /^4-7\. BatchGet of 120 keys in 2 requests: 120 items$/m);
  assert.match(out, /101 keys in one request: ValidationException: .*less than or equal to 100/);
  assert.match(out, /paged back through 120 messages/);
});

test("likes.mjs: parallel likes, refused double-like, unlike, unread through the LSIs, mark read", async () => {
  const out = await runExample("likes");
  assert.match(out, /^30 users liked comment-1 at once: count 30$/m);
  assert.match(out, /again: TransactionCanceledException \[ConditionalCheckFailed, None, None, None\]/);
  assert.match(out, /^unread total for author-1: 31$/m);
});

test("sessions.mjs: the eight access patterns, run twice (the example replaces its table)", async () => {
  await runExample("sessions");
  const out = await runExample("sessions");
  assert.match(out, /^8\. getSessionsByCustomerId c#ABC: suuid#c342etj3, suuid#d0004tj2$/m);
  assert.match(out, /^3\. expireSession suuid#d0004tj2; c#ABC now has suuid#c342etj3$/m);
});

test("orders.mjs: idempotent orders, GSI1 by status, the filtered stream, run twice (deletion protection)", async () => {
  await runExample("orders");
  const out = await runExample("orders");
  assert.match(out, /re-submitting o1: TransactionCanceledException \[ConditionalCheckFailed, None\]/);
  assert.match(out, /^getOrdersByStatus SHIPPED: o1, o3$/m);
  assert.match(out, /^ {2}MODIFY ORDER#o1 SHIPPED \(was PENDING\)$/m);
});

test("chat-search.mjs: semantic search in a room, the sender filter, an edit and a delete", async () => {
  const out = await runExample("chat-search");
  assert.match(out, /^1\. posted 10 messages; ByMeaning holds 9 \(ACTIVE\)$/m);
  assert.match(out, /^ {3}0\.0871 {2}ben: The release pipeline broke: tests crash on the database step$/m);
  assert.match(out, /^5\. edited m04 \(1024 vector write bytes\); "dynamodb table design": m06, m04, m02$/m);
  assert.match(out, /^6\. deleted m02; .* now: m03, m05, m01$/m);
});

// Emulator-only: ddbemu's access-pattern report (GET /ddbemu/insight/<table>).
test("the access-pattern report counts what the examples did", async () => {
  const report = async (table) => (await emu.control(`insight/${table}`)).tables[0];
  const sessions = await report("session_store");
  assert.equal(sessions.requests.PutItem, 6);
  assert.equal(sessions.requests.Query, 6);
  assert.equal(sessions.requests.DeleteItem, 1);
  const orders = await report("app-dev-main");
  assert.equal(orders.requests.TransactWriteItems, 4);
  assert.equal(orders.transactions.canceled, 1);
  const chat = await report("Chat");
  assert.equal(chat.batches.BatchGetItem.max, 100);
  const search = await report("ChatMessages");
  assert.equal(search.requests.SearchVectors, 4);
  assert.equal(search.vector_indexes[0].searches, 4);
});
