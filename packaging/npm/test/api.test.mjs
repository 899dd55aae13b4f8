// SPDX-License-Identifier: MIT
//
// The npm package's smoke test, run by packaging/npm/verify with `node --test`
// in a fresh project where the packed tarballs and @aws-sdk/client-dynamodb
// were installed: the API starts a server, the SDK uses it, stop() ends it.
// Imported through the package name, as a user would.

import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  CreateTableCommand,
  DynamoDBClient,
  GetItemCommand,
  ListTablesCommand,
  PutItemCommand,
} from "@aws-sdk/client-dynamodb";
import { start, binaryPath } from "ddbemu";

const require = createRequire(import.meta.url);

function client(endpoint, accessKeyId = "ddbemuNpmTest") {
  return new DynamoDBClient({
    endpoint,
    region: "us-east-1",
    credentials: { accessKeyId, secretAccessKey: "secret" },
  });
}

async function createTable(ddb, name) {
  await ddb.send(
    new CreateTableCommand({
      TableName: name,
      AttributeDefinitions: [{ AttributeName: "pk", AttributeType: "S" }],
      KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }],
      BillingMode: "PAY_PER_REQUEST",
    }),
  );
}

async function tableNames(ddb) {
  return (await ddb.send(new ListTablesCommand({}))).TableNames;
}

test("the binary comes from the platform package", () => {
  assert.match(binaryPath(), /node_modules\/@ddbemu\/linux-(x64|arm64)\/bin\/ddbemu$/);
});

test("start, create a table, put, get, stop", async () => {
  const server = await start();
  try {
    assert.match(server.endpoint, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.ok(server.port > 0);
    const ddb = client(server.endpoint);
    await createTable(ddb, "things");
    await ddb.send(
      new PutItemCommand({ TableName: "things", Item: { pk: { S: "a" }, n: { N: "42" } } }),
    );
    const got = await ddb.send(new GetItemCommand({ TableName: "things", Key: { pk: { S: "a" } } }));
    assert.deepEqual(got.Item, { pk: { S: "a" }, n: { N: "42" } });
    ddb.destroy();
  } finally {
    await server.stop();
  }
  await assert.rejects(fetch(server.endpoint + "/"), "the server is gone after stop()");
});

test("two servers run side by side on their own ports", async () => {
  const [a, b] = await Promise.all([start(), start()]);
  try {
    assert.notEqual(a.port, b.port);
  } finally {
    await Promise.all([a.stop(), b.stop()]);
  }
});

test("access keys isolate workers; sharedDb joins them", async () => {
  const isolated = await start();
  try {
    const w1 = client(isolated.endpoint, "worker1");
    const w2 = client(isolated.endpoint, "worker2");
    await createTable(w1, "orders");
    assert.deepEqual(await tableNames(w1), ["orders"]);
    assert.deepEqual(await tableNames(w2), []);
    await createTable(w2, "orders"); // the same name, another namespace
  } finally {
    await isolated.stop();
  }
  const shared = await start({ sharedDb: true });
  try {
    await createTable(client(shared.endpoint, "worker1"), "orders");
    assert.deepEqual(await tableNames(client(shared.endpoint, "worker2")), ["orders"]);
  } finally {
    await shared.stop();
  }
});

test("dbPath keeps tables across restarts", async () => {
  const dir = mkdtempSync(join(tmpdir(), "ddbemu-npm-"));
  try {
    const first = await start({ dbPath: dir });
    await createTable(client(first.endpoint), "kept");
    await client(first.endpoint).send(
      new PutItemCommand({ TableName: "kept", Item: { pk: { S: "k" } } }),
    );
    await first.stop();
    const second = await start({ dbPath: dir });
    try {
      const got = await client(second.endpoint).send(
        new GetItemCommand({ TableName: "kept", Key: { pk: { S: "k" } } }),
      );
      assert.deepEqual(got.Item, { pk: { S: "k" } });
    } finally {
      await second.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("extra args reach the server; a bad one is reported with its message", async () => {
  await assert.rejects(start({ args: ["--no-such-option"] }), /unknown option '--no-such-option'/);
  const server = await start({ args: ["--log-level", "debug"] });
  await server.stop();
});

test("require() gives the same API", () => {
  const cjs = require("ddbemu");
  assert.equal(typeof cjs.start, "function");
  assert.equal(cjs.binaryPath(), binaryPath());
  for (const name of ["forkForWorker", "saveSnapshot", "deleteSnapshot", "listSnapshots",
    "workerId", "workerAccessKey", "ControlError"]) {
    assert.equal(typeof cjs[name], "function", name);
  }
});
