// SPDX-License-Identifier: MIT
//
// mcp.test.mjs - the MCP endpoint /ddbemu/mcp through the official MCP
// TypeScript SDK's client and its StreamableHTTPClientTransport
// (docs/mcp.md): list the tools, then validate a design end to end - create
// a table, put items, query them, read the access-pattern report - and check
// snapshots, the clock, the result cap and --mcp-read-only.

import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { startDdbemu } from "./ddbemu.mjs";

const KEY = { access_key: "mcpAgent", region: "us-east-1" };
let server, readOnly;

async function connect(endpoint) {
  const client = new Client({ name: "ddbemu-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${endpoint}/ddbemu/mcp`)));
  return client;
}

/** Calls a tool; returns [parsed JSON text (or the raw text), isError]. */
async function call(client, name, args) {
  const r = await client.callTool({ name, arguments: args });
  const text = r.content[0].text;
  let value = text;
  try {
    value = JSON.parse(text);
  } catch {
    /* a message, not JSON */
  }
  return [value, r.isError === true];
}

before(async () => {
  server = await startDdbemu();
  readOnly = await startDdbemu("--mcp-read-only");
});

after(async () => {
  await server.stop();
  await readOnly.stop();
});

test("the tools are listed with their input schemas", async () => {
  const client = await connect(server.endpoint);
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name).sort();
  assert.deepEqual(names, [
    "access_report", "clock", "describe_table", "dynamodb", "list_tables", "snapshot_fork",
    "snapshot_list", "snapshot_restore", "snapshot_save",
  ]);
  for (const t of tools) assert.equal(t.inputSchema.type, "object");
  await client.close();
});

test("a design is validated end to end through the tools", async () => {
  const client = await connect(server.endpoint);
  let [out, isError] = await call(client, "dynamodb", {
    ...KEY,
    operation: "CreateTable",
    input: {
      TableName: "Orders",
      BillingMode: "PAY_PER_REQUEST",
      KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }, { AttributeName: "sk", KeyType: "RANGE" }],
      AttributeDefinitions: [{ AttributeName: "pk", AttributeType: "S" }, { AttributeName: "sk", AttributeType: "S" }],
    },
  });
  assert.equal(isError, false, JSON.stringify(out));
  for (let i = 0; i < 5; i++) {
    [out, isError] = await call(client, "dynamodb", {
      ...KEY,
      operation: "PutItem",
      input: { TableName: "Orders", Item: { pk: { S: "customer#1" }, sk: { S: `order#${i}` }, total: { N: String(i * 10) } } },
    });
    assert.equal(isError, false, JSON.stringify(out));
  }
  [out] = await call(client, "list_tables", KEY);
  assert.deepEqual(out.TableNames, ["Orders"]);
  [out] = await call(client, "describe_table", { ...KEY, table_name: "Orders" });
  assert.equal(out.Table.ItemCount, 5);
  [out, isError] = await call(client, "dynamodb", {
    ...KEY,
    operation: "Query",
    input: { TableName: "Orders", KeyConditionExpression: "pk = :c", ExpressionAttributeValues: { ":c": { S: "customer#1" } } },
  });
  assert.equal(isError, false);
  assert.equal(out.Count, 5);
  // DynamoDB's own errors come back as tool errors with its JSON.
  [out, isError] = await call(client, "dynamodb", { ...KEY, operation: "GetItem", input: { TableName: "Nope", Key: { pk: { S: "x" } } } });
  assert.equal(isError, true);
  assert.match(out.__type, /ResourceNotFoundException/);
  // The report saw the writes and the query.
  [out, isError] = await call(client, "access_report", { ...KEY, table_name: "Orders" });
  assert.equal(isError, false, JSON.stringify(out));
  assert.equal(out.tables[0].base.items_written, 5);
  assert.ok(JSON.stringify(out.tables[0].base).includes("query"));
  await client.close();
});

test("snapshots and the clock through the tools", async () => {
  const client = await connect(server.endpoint);
  const table = { ...KEY, operation: "CreateTable", input: {
    TableName: "Seeded", BillingMode: "PAY_PER_REQUEST",
    KeySchema: [{ AttributeName: "k", KeyType: "HASH" }],
    AttributeDefinitions: [{ AttributeName: "k", AttributeType: "S" }] } };
  assert.equal((await call(client, "dynamodb", table))[1], false);
  await call(client, "dynamodb", { ...KEY, operation: "PutItem", input: { TableName: "Seeded", Item: { k: { S: "a" } } } });
  let [out, isError] = await call(client, "snapshot_save", { ...KEY, name: "seed" });
  assert.equal(isError, false, JSON.stringify(out));
  await call(client, "dynamodb", { ...KEY, operation: "DeleteItem", input: { TableName: "Seeded", Key: { k: { S: "a" } } } });
  [out, isError] = await call(client, "snapshot_restore", { name: "seed" });
  assert.equal(isError, false, JSON.stringify(out));
  [out] = await call(client, "dynamodb", { ...KEY, operation: "GetItem", input: { TableName: "Seeded", Key: { k: { S: "a" } } } });
  assert.deepEqual(out.Item, { k: { S: "a" } });
  [out] = await call(client, "snapshot_fork", { name: "seed", to_access_key: "worker1" });
  assert.ok(out.tables >= 1, JSON.stringify(out));
  [out] = await call(client, "list_tables", { access_key: "worker1", region: "us-east-1" });
  assert.ok(out.TableNames.includes("Seeded"));
  [out] = await call(client, "snapshot_list", {});
  assert.equal(out.snapshots[0].name, "seed");
  const [{ now_ms: now }] = await call(client, "clock", {});
  const [{ now_ms: later }] = await call(client, "clock", { advance_ms: 3600000 });
  assert.ok(later >= now + 3600000);
  await client.close();
});

test("results are capped", async () => {
  const client = await connect(server.endpoint);
  const big = "x".repeat(300000);
  await call(client, "dynamodb", { ...KEY, operation: "PutItem", input: { TableName: "Seeded", Item: { k: { S: "big" }, v: { S: big } } } });
  const r = await client.callTool({ name: "dynamodb", arguments: { ...KEY, operation: "Scan", input: { TableName: "Seeded" } } });
  assert.ok(r.content[0].text.length < 70000);
  assert.match(r.content[0].text, /result cut at/);
  await client.close();
});

test("--mcp-read-only refuses changes and allows reads", async () => {
  const client = await connect(readOnly.endpoint);
  let [out, isError] = await call(client, "dynamodb", { ...KEY, operation: "CreateTable", input: { TableName: "T" } });
  assert.equal(isError, true);
  assert.match(out, /mcp-read-only/);
  [out, isError] = await call(client, "dynamodb", { ...KEY, operation: "ExecuteStatement", input: { Statement: "DELETE FROM T WHERE k = 'a'" } });
  assert.equal(isError, true);
  assert.equal((await call(client, "snapshot_save", { ...KEY, name: "x" }))[1], true);
  assert.equal((await call(client, "clock", { advance_ms: 1 }))[1], true);
  [out, isError] = await call(client, "list_tables", KEY);
  assert.equal(isError, false);
  assert.deepEqual(out.TableNames, []);
  assert.equal((await call(client, "clock", {}))[1], false);
  await client.close();
});

test("unknown tools and methods are JSON-RPC errors; GET is 405", async () => {
  const client = await connect(server.endpoint);
  await assert.rejects(client.callTool({ name: "nope", arguments: {} }), /Unknown tool/);
  await client.close();
  const get = await fetch(`${server.endpoint}/ddbemu/mcp`);
  assert.equal(get.status, 405);
  const resp = await fetch(`${server.endpoint}/ddbemu/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "resources/list" }),
  });
  assert.equal(resp.status, 200);
  assert.deepEqual((await resp.json()).error.code, -32601);
});
