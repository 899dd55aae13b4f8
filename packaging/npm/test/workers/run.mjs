// SPDX-License-Identifier: MIT
//
// The node --test pattern for parallel workers, as the README gives it:
// node --test (Node 20 and 22) has no global setup, so this script is it. It
// starts one server, seeds one access key, saves it as the snapshot "seed",
// then runs the test files with DDBEMU_ENDPOINT set. node --test runs each
// file in a process of its own, two at a time here; forkForWorker("seed")
// takes the process id as the worker id (workerId()), so each file gets its
// own copy of the seed. Run by packaging/npm/verify in the fresh project:
//   node run.mjs a.test.mjs b.test.mjs

import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CreateTableCommand, DynamoDBClient, PutItemCommand } from "@aws-sdk/client-dynamodb";
import { saveSnapshot, start } from "ddbemu";

const SEED_ITEMS = 10; // worker-check.mjs counts on as many

const server = await start();
let status = 1;
const meeting = mkdtempSync(join(tmpdir(), "ddbemu-workers-"));
try {
  const seed = new DynamoDBClient({
    endpoint: server.endpoint,
    region: "us-east-1",
    credentials: { accessKeyId: "seed", secretAccessKey: "x" },
  });
  await seed.send(
    new CreateTableCommand({
      TableName: "Orders",
      AttributeDefinitions: [{ AttributeName: "pk", AttributeType: "S" }],
      KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }],
      BillingMode: "PAY_PER_REQUEST",
    }),
  );
  for (let i = 0; i < SEED_ITEMS; i++) {
    await seed.send(new PutItemCommand({ TableName: "Orders", Item: { pk: { S: `seed#${i}` } } }));
  }
  seed.destroy();
  await saveSnapshot("seed", { endpoint: server.endpoint, accessKeyId: "seed" });

  const run = spawnSync(
    process.execPath,
    ["--test", "--test-concurrency=2", ...process.argv.slice(2)],
    {
      stdio: "inherit",
      env: { ...process.env, DDBEMU_ENDPOINT: server.endpoint, DDB_WORKERS_MEETING: meeting },
    },
  );
  status = run.status ?? 1;
} finally {
  await server.stop();
  rmSync(meeting, { recursive: true, force: true });
}
process.exit(status);
