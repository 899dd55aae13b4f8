// SPDX-License-Identifier: MIT
//
// mcp.test.mjs - the MCP endpoint /ddbemu/mcp through the official MCP
// TypeScript SDK's client and its StreamableHTTPClientTransport
// (docs/mcp.md): list the tools, then validate a design end to end - create
// a table, put items, query them, read the access-pattern report - and check
// snapshots, the clock, the result cap and --mcp-read-only - and the
// transport's sessions as the SDK client lives them: one Mcp-Session-Id
// kept across calls, terminateSession, a session per client, a 404 for an
// ended session upon which the client re-initializes, and answers as SSE
// streams when the client's Accept prefers them. Raw HTTP checks of each
// header rule: conformance/test_emulator_mcp_transport.py.

import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { startDdbemu } from "./ddbemu.mjs";

const KEY = { access_key: "mcpAgent", region: "us-east-1" };
let server, readOnly;

async function connect(endpoint, options) {
  const client = new Client({ name: "ddbemu-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${endpoint}/ddbemu/mcp`), options));
  return client;
}

/** A fetch for the transport that records each request's method and MCP headers. */
function recordingFetch(log, rewriteAccept) {
  return async (url, init) => {
    const headers = new Headers(init.headers);
    if (rewriteAccept && init.method === "POST") headers.set("accept", rewriteAccept);
    const entry = { method: init.method, session: headers.get("mcp-session-id"), version: headers.get("mcp-protocol-version") };
    log.push(entry);
    const response = await fetch(url, { ...init, headers });
    entry.status = response.status;
    entry.type = response.headers.get("content-type");
    return response;
  };
}

/** Rejects with the transport's 404 for an ended session. */
async function rejectsSessionNotFound(promise) {
  await assert.rejects(promise, (e) => e instanceof StreamableHTTPError && e.code === 404);
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
  const session = client.transport.sessionId;
  const get = await fetch(`${server.endpoint}/ddbemu/mcp`, { headers: { accept: "text/event-stream", "mcp-session-id": session } });
  assert.equal(get.status, 405);
  const resp = await fetch(`${server.endpoint}/ddbemu/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-session-id": session },
    body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "resources/list" }),
  });
  assert.equal(resp.status, 200);
  assert.deepEqual((await resp.json()).error.code, -32601);
  await client.close();
});

test("the session id issued at initialize is sent with every later request", async () => {
  const log = [];
  const client = await connect(server.endpoint, { fetch: recordingFetch(log) });
  const session = client.transport.sessionId;
  assert.match(session, /^[0-9a-f]{32}$/);
  await client.listTools();
  await call(client, "list_tables", KEY);
  await client.ping();
  assert.equal(client.transport.sessionId, session);
  // initialize goes without a session; everything after it (the initialized
  // notification, the GET the client tries for a stream, the requests) with
  // it, and with the negotiated protocol version.
  assert.equal(log[0].session, null);
  assert.ok(log.length >= 5);
  for (const r of log.slice(1)) {
    assert.equal(r.session, session, JSON.stringify(r));
    assert.equal(r.version, "2025-11-25");
  }
  assert.ok(log.some((r) => r.method === "GET"), "the client asked for a stream and took the 405");
  // The session lives on the server: a new transport given its id carries on without initialize.
  const resumed = new Client({ name: "ddbemu-test", version: "1.0.0" });
  await resumed.connect(new StreamableHTTPClientTransport(new URL(`${server.endpoint}/ddbemu/mcp`), { sessionId: session }));
  assert.equal(resumed.transport.sessionId, session);
  assert.equal((await call(resumed, "list_tables", KEY))[1], false);
  await resumed.close();
  await client.close();
});

test("each client gets its own session; terminateSession ends only its own", async () => {
  const a = await connect(server.endpoint);
  const b = await connect(server.endpoint);
  assert.notEqual(a.transport.sessionId, b.transport.sessionId);
  await a.transport.terminateSession();
  assert.equal(a.transport.sessionId, undefined);
  assert.deepEqual((await call(b, "list_tables", KEY))[1], false);
  await a.close();
  await b.close();
});

test("an ended session gets 404 and the client re-initializes", async () => {
  const first = await connect(server.endpoint);
  const ended = first.transport.sessionId;
  // Ended by someone else (another DELETE, or the server's idle expiry or
  // bound): the client still holds the id and its next request gets 404.
  const del = await fetch(`${server.endpoint}/ddbemu/mcp`, { method: "DELETE", headers: { "mcp-session-id": ended } });
  assert.equal(del.status, 200);
  await rejectsSessionNotFound(first.listTools());
  await rejectsSessionNotFound(first.transport.terminateSession());
  await first.close();
  // The specification's answer to a 404: a new InitializeRequest without the id.
  const again = await connect(server.endpoint);
  assert.notEqual(again.transport.sessionId, ended);
  assert.ok((await again.listTools()).tools.length > 0);
  await again.close();
});

test("a session ended by the bound on open sessions gets 404; the client re-initializes", async () => {
  const own = await startDdbemu();
  try {
    const client = await connect(own.endpoint);
    const evicted = client.transport.sessionId;
    // 256 newer sessions (MCP_SESSIONS_MAX, docs/mcp.md) push out the least recently used.
    for (let i = 0; i < 256; i++) {
      const r = await fetch(`${own.endpoint}/ddbemu/mcp`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: i, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "filler", version: "1" } } }),
      });
      assert.equal(r.status, 200);
      await r.text();
    }
    await rejectsSessionNotFound(client.listTools());
    await client.close();
    const again = await connect(own.endpoint);
    assert.notEqual(again.transport.sessionId, evicted);
    assert.equal((await call(again, "list_tables", KEY))[1], false);
    await again.close();
  } finally {
    await own.stop();
  }
});

test("answers come as SSE streams when the client prefers them", async () => {
  const log = [];
  const client = await connect(server.endpoint, { fetch: recordingFetch(log, "text/event-stream, application/json;q=0.1") });
  const { tools } = await client.listTools();
  assert.ok(tools.some((t) => t.name === "dynamodb"));
  const [out, isError] = await call(client, "list_tables", KEY);
  assert.equal(isError, false);
  assert.ok(Array.isArray(out.TableNames));
  // Every request (initialize included) was answered with a stream; notifications with 202.
  const posts = log.filter((r) => r.method === "POST");
  assert.deepEqual(posts.map((r) => r.status), [200, 202, 200, 200]);
  for (const r of posts.filter((p) => p.status === 200)) assert.equal(r.type, "text/event-stream");
  const raw = await fetch(`${server.endpoint}/ddbemu/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream", "mcp-session-id": client.transport.sessionId },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
  });
  assert.equal(raw.headers.get("content-type"), "text/event-stream");
  assert.equal(await raw.text(), 'event: message\ndata: {"jsonrpc":"2.0","id":1,"result":{}}\n\n');
  await client.close();
});
