// SPDX-License-Identifier: MIT
//
// Bulk put items through the AWS SDK for JavaScript v3 (the pinned
// @aws-sdk/client-dynamodb has StartBulkPutItemsCommand and the three
// others): the SDK fills in ClientToken, sends the operations to the
// configured endpoint, and parses the BulkOperationDescription, the list and
// its paginator, and the errors by their exception classes. The buckets are
// folders of --s3-dir (docs/differences.md, "Bulk put items").

import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";

import {
  CancelBulkOperationCommand,
  CreateTableCommand,
  DescribeBulkOperationCommand,
  DynamoDBClient,
  GetItemCommand,
  ListBulkOperationsCommand,
  PutItemCommand,
  StartBulkPutItemsCommand,
  paginateListBulkOperations,
} from "@aws-sdk/client-dynamodb";

import { credentials, region, startDdbemu } from "./ddbemu.mjs";

let emu, client, s3;

before(async () => {
  s3 = mkdtempSync(join(tmpdir(), "ddbemu-bulk-js-"));
  mkdirSync(join(s3, "input"));
  mkdirSync(join(s3, "report"));
  emu = await startDdbemu("--s3-dir", s3);
  client = new DynamoDBClient({ endpoint: emu.endpoint, region, credentials });
});

after(async () => {
  client.destroy();
  await emu.stop();
  rmSync(s3, { recursive: true, force: true });
});

async function createTable(name) {
  await client.send(new CreateTableCommand({
    TableName: name,
    BillingMode: "PAY_PER_REQUEST",
    KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }],
    AttributeDefinitions: [{ AttributeName: "pk", AttributeType: "S" }],
  }));
}

function startInput(table, prefix, extra = {}) {
  return new StartBulkPutItemsCommand({
    TableName: table,
    InputS3Configuration: { S3Bucket: "input", S3KeyPrefix: prefix, InputFormat: "DYNAMODB_JSON" },
    OutputS3Configuration: {
      S3Bucket: "report", S3KeyPrefix: prefix, OutputType: ["ERROR", "CONDITION_CHECK_FAILURE"],
    },
    ...extra,
  });
}

async function waitDone(arn) {
  for (let i = 0; i < 600; i++) {
    const { BulkOperationDescription: d } = await client.send(
      new DescribeBulkOperationCommand({ BulkOperationArn: arn }));
    if (!["IN_PROGRESS", "CANCELLING"].includes(d.BulkOperationStatus)) return d;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error("the bulk operation did not end");
}

function files(dir) {
  return readdirSync(dir, { recursive: true }).map(String);
}

test("items with per-item conditions land in the table; the report names the failures",
  async () => {
    await createTable("bulk_js");
    await client.send(new PutItemCommand({
      TableName: "bulk_js", Item: { pk: { S: "taken" }, v: { N: "1" } },
    }));
    const records = [
      { Item: { pk: { S: "a" }, v: { N: "1" }, tags: { SS: ["x", "y"] } } },
      { Item: { pk: { S: "taken" }, v: { N: "2" } }, ConditionExpression: "attribute_not_exists(pk)" },
      { Item: { pk: { S: "b" } }, ConditionExpression: "attribute_not_exists(#k)",
        ExpressionAttributeNames: { "#k": "pk" } },
      { Item: { nokey: { S: "?" } } },
    ];
    mkdirSync(join(s3, "input", "one"));
    writeFileSync(join(s3, "input", "one", "data.json"),
      records.map((r) => JSON.stringify(r)).join("\n") + "\n");

    const started = await client.send(startInput("bulk_js", "one/"));
    const d0 = started.BulkOperationDescription;
    assert.match(d0.ClientToken, /^[0-9a-f-]{36}$/); // filled in by the SDK
    assert.ok(d0.StartTime instanceof Date);
    assert.deepEqual(d0.TableDetails.map((t) => t.TableName), ["bulk_js"]);

    const d = await waitDone(d0.BulkOperationArn);
    assert.equal(d.BulkOperationStatus, "COMPLETED_WITH_ERRORS");
    assert.equal(d.ProcessedItemCount, 4);
    assert.equal(d.FailedItemCount, 1);
    assert.ok(d.EndTime instanceof Date);
    assert.equal(d.PerformanceTier, "STANDARD");
    assert.ok(d.BulkOperationUsage[0].BulkPutBytes > 0);

    const get = async (pk) => (await client.send(new GetItemCommand({
      TableName: "bulk_js", Key: { pk: { S: pk } } }))).Item;
    assert.deepEqual((await get("a")).tags.SS.sort(), ["x", "y"]);
    assert.ok(await get("b"));
    assert.equal((await get("taken")).v.N, "1");

    const report = files(join(s3, "report"));
    const conditions = report.find((f) => f.endsWith("CONDITION_CHECK_FAILURE/data.json"));
    const failure = JSON.parse(readFileSync(join(s3, "report", conditions), "utf8"));
    assert.equal(failure.LineNumber, 2);
    assert.deepEqual(failure.ExistingItem, { pk: { S: "taken" }, v: { N: "1" } });
    const errors = report.find((f) => f.endsWith("ERROR/data.json"));
    const error = JSON.parse(readFileSync(join(s3, "report", errors), "utf8"));
    assert.equal(error.ErrorMessage,
      "One or more parameter values were invalid: Missing the key pk in the item");
  });

test("a retried ClientToken answers the same operation; other parameters are refused",
  async () => {
    await createTable("bulk_js_token");
    mkdirSync(join(s3, "input", "two"));
    writeFileSync(join(s3, "input", "two", "d.json"), '{"Item":{"pk":{"S":"z"}}}\n');
    const token = "token-" + Date.now();
    const first = await client.send(startInput("bulk_js_token", "two/", { ClientToken: token }));
    await waitDone(first.BulkOperationDescription.BulkOperationArn);
    const again = await client.send(startInput("bulk_js_token", "two/", { ClientToken: token }));
    assert.equal(again.BulkOperationDescription.BulkOperationArn,
      first.BulkOperationDescription.BulkOperationArn);
    await assert.rejects(
      client.send(startInput("bulk_js_token", "two/", { ClientToken: token, PerformanceTier: "ACCELERATED" })),
      (err) => err.name === "IdempotentParameterMismatchException");
    await assert.rejects(
      client.send(new CancelBulkOperationCommand({
        BulkOperationArn: first.BulkOperationDescription.BulkOperationArn })),
      (err) => err.name === "ValidationException");
  });

test("ListBulkOperations pages newest first, through the SDK's paginator", async () => {
  const page = await client.send(new ListBulkOperationsCommand({ MaxResults: 1 }));
  assert.equal(page.BulkOperationsSummaryList.length, 1);
  assert.match(page.NextToken, /^([0-9a-f]{16})+$/);
  const all = [];
  for await (const p of paginateListBulkOperations({ client, pageSize: 1 }, {})) {
    all.push(...p.BulkOperationsSummaryList);
  }
  assert.ok(all.length >= 2);
  assert.equal(all[0].BulkOperationArn, page.BulkOperationsSummaryList[0].BulkOperationArn);
  for (let i = 1; i < all.length; i++) assert.ok(all[i - 1].StartTime >= all[i].StartTime);
  await assert.rejects(
    client.send(new DescribeBulkOperationCommand({
      BulkOperationArn: `arn:aws:dynamodb:${region}:000000000000:table/x/bulk-operation/none-00000000`,
    })),
    (err) => err.name === "ResourceNotFoundException");
});
