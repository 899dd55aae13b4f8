// SPDX-License-Identifier: MIT
//
// Emulator only: the npm package's fork helpers for parallel test workers
// (packaging/npm/ddbemu/lib/workers.js), imported from the source tree, with
// the AWS SDK for JavaScript v3: a seed saved once, forked into one access key
// per worker id, each worker seeing the seed and its own writes only, and
// restore() putting the seed back. packaging/npm/verify runs the installed
// package the same way, and in two concurrent node --test processes.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import {
  CreateTableCommand,
  DeleteItemCommand,
  DynamoDBClient,
  ListTablesCommand,
  PutItemCommand,
  ScanCommand,
} from "@aws-sdk/client-dynamodb";

import {
  ControlError,
  deleteSnapshot,
  forkForWorker,
  listSnapshots,
  saveSnapshot,
  workerAccessKey,
  workerId,
} from "../../packaging/npm/ddbemu/lib/index.mjs";
import { startDdbemu } from "./ddbemu.mjs";

let emu;
const opened = [];

function clientFor(config) {
  const client = new DynamoDBClient(config);
  opened.push(client);
  return client;
}

async function keys(client) {
  const page = await client.send(new ScanCommand({ TableName: "Orders", ConsistentRead: true }));
  return page.Items.map((item) => item.pk.S).sort();
}

const seeds = ["seed#0", "seed#1", "seed#2", "seed#3"];

before(async () => {
  emu = await startDdbemu();
  const seed = clientFor({
    endpoint: emu.endpoint,
    region: "eu-west-1",
    credentials: { accessKeyId: "seedkey", secretAccessKey: "x" },
  });
  await seed.send(
    new CreateTableCommand({
      TableName: "Orders",
      AttributeDefinitions: [{ AttributeName: "pk", AttributeType: "S" }],
      KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }],
      BillingMode: "PAY_PER_REQUEST",
    }),
  );
  for (const pk of seeds) {
    await seed.send(new PutItemCommand({ TableName: "Orders", Item: { pk: { S: pk } } }));
  }
  const info = await saveSnapshot("seed", {
    endpoint: emu.endpoint,
    accessKeyId: "seedkey",
    region: "eu-west-1",
  });
  assert.equal(info.namespace, "seedkey/eu-west-1");
  assert.equal(info.items, seeds.length);
});

after(async () => {
  for (const client of opened) client.destroy();
  await emu?.stop();
});

test("each worker's fork holds the seed and its own writes only", async () => {
  const [w1, w2] = await Promise.all([
    forkForWorker("seed", 1, { endpoint: emu.endpoint }),
    forkForWorker("seed", "2", { endpoint: emu.endpoint }),
  ]);
  assert.equal(w1.accessKeyId, "ddbemu1");
  assert.equal(w2.accessKeyId, "ddbemu2");
  assert.equal(w1.region, "eu-west-1"); // a fork keeps the snapshot's region
  assert.deepEqual(w1.clientConfig.credentials, w1.credentials);
  const c1 = clientFor(w1.clientConfig);
  const c2 = clientFor(w2.clientConfig);
  await c1.send(new PutItemCommand({ TableName: "Orders", Item: { pk: { S: "w1" } } }));
  await c2.send(new DeleteItemCommand({ TableName: "Orders", Key: { pk: { S: "seed#0" } } }));
  assert.deepEqual(await keys(c1), [...seeds, "w1"].sort());
  assert.deepEqual(await keys(c2), seeds.slice(1));
  await w1.restore();
  assert.deepEqual(await keys(c1), seeds);
  assert.deepEqual(await keys(c2), seeds.slice(1), "restoring one worker leaves the other");
});

test("the worker id from the runner's environment, the endpoint from DDBEMU_ENDPOINT", async () => {
  assert.equal(workerId({ JEST_WORKER_ID: "3", VITEST_POOL_ID: "5" }), "3");
  assert.equal(workerId({ VITEST_POOL_ID: "5", VITEST_WORKER_ID: "17" }), "5");
  assert.equal(workerId({ VITEST_WORKER_ID: "17" }), "17");
  assert.equal(workerId({}), String(process.pid)); // node --test: a process per test file
  const saved = process.env.DDBEMU_ENDPOINT;
  process.env.DDBEMU_ENDPOINT = emu.endpoint;
  try {
    const fork = await forkForWorker("seed", { workerId: "gw9", prefix: "t-" });
    assert.equal(fork.accessKeyId, "t-gw9");
    assert.equal(fork.workerId, "gw9");
    const tables = await clientFor(fork.clientConfig).send(new ListTablesCommand({}));
    assert.deepEqual(tables.TableNames, ["Orders"]);
    delete process.env.DDBEMU_ENDPOINT;
    await assert.rejects(forkForWorker("seed", 1), /no ddbemu endpoint/);
  } finally {
    if (saved === undefined) delete process.env.DDBEMU_ENDPOINT;
    else process.env.DDBEMU_ENDPOINT = saved;
  }
});

test("errors: no such snapshot, a name taken, a worker id that makes no access key", async () => {
  const endpoint = emu.endpoint;
  await assert.rejects(forkForWorker("no-such", 1, { endpoint }), (err) => {
    assert.ok(err instanceof ControlError);
    assert.equal(err.status, 404);
    return true;
  });
  await saveSnapshot("taken", { endpoint, accessKeyId: "seedkey", region: "eu-west-1" });
  await assert.rejects(saveSnapshot("taken", { endpoint, accessKeyId: "seedkey" }), {
    name: "ControlError",
    status: 409,
  });
  assert.deepEqual(
    (await listSnapshots({ endpoint })).map((s) => s.name),
    ["seed", "taken"],
  );
  await deleteSnapshot("taken", { endpoint });
  assert.deepEqual(
    (await listSnapshots({ endpoint })).map((s) => s.name),
    ["seed"],
  );
  for (const bad of ["", "a/b", "with space", "x".repeat(130)]) {
    assert.throws(() => workerAccessKey(bad), RangeError);
  }
  await assert.rejects(saveSnapshot("x", { endpoint }), TypeError); // no accessKeyId
});
