// SPDX-License-Identifier: MIT
//
// console.test.mjs - the web console (/ddbemu/ui) driven as a person uses it,
// in headless Chromium (Debian's chromium, through playwright-core): the
// tables, an item created and found by a query, its stream record arriving
// in the live tail, the clock advanced until a TTL item disappears, and a hot
// partition read off the Monitor charts. Screenshots go to
// <build dir>/console-screenshots/ (DDBEMU_SCREENSHOTS overrides).
//
// Without Chromium the test says so and fails under CI (CI=true); elsewhere
// it is skipped with the same message, so a laptop without a browser can
// still run the rest.

import assert from "node:assert/strict";
import { existsSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";

import { startDdbemu } from "../js/ddbemu.mjs";

const ACCESS_KEY = "consoleTestKey";
const REGION = "eu-west-1";
const CHROMIUM = [process.env.CHROMIUM, "/usr/bin/chromium", "/usr/bin/chromium-browser"].find(
  (p) => p && existsSync(p));

function screenshotDir() {
  const bin = process.env.DDBEMU_BIN;
  const dir = process.env.DDBEMU_SCREENSHOTS ||
    (bin ? join(dirname(dirname(bin)), "console-screenshots") : join(import.meta.dirname ?? ".", "..", "..", "build", "console-screenshots"));
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** A DynamoDB call from the test itself (the namespace of the console's page). */
async function ddb(endpoint, op, body) {
  const date = new Date().toISOString().replace(/[-:]/g, "").replace(/\.\d+Z$/, "Z");
  const resp = await fetch(endpoint, {
    method: "POST",
    headers: {
      "Content-Type": "application/x-amz-json-1.0",
      "X-Amz-Target": `DynamoDB_20120810.${op}`,
      "X-Amz-Date": date,
      Authorization: `AWS4-HMAC-SHA256 Credential=${ACCESS_KEY}/${date.slice(0, 8)}/${REGION}/dynamodb/aws4_request, SignedHeaders=host, Signature=00`,
    },
    body: JSON.stringify(body),
  });
  const out = await resp.json();
  assert.ok(resp.ok, `${op}: ${JSON.stringify(out)}`);
  return out;
}

async function createOrders(endpoint, control) {
  await ddb(endpoint, "CreateTable", {
    TableName: "Orders",
    BillingMode: "PAY_PER_REQUEST",
    AttributeDefinitions: [
      { AttributeName: "pk", AttributeType: "S" }, { AttributeName: "sk", AttributeType: "S" },
      { AttributeName: "status", AttributeType: "S" },
    ],
    KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }, { AttributeName: "sk", KeyType: "RANGE" }],
    GlobalSecondaryIndexes: [{
      IndexName: "ByStatus",
      KeySchema: [{ AttributeName: "status", KeyType: "HASH" }, { AttributeName: "sk", KeyType: "RANGE" }],
      Projection: { ProjectionType: "ALL" },
    }],
    StreamSpecification: { StreamEnabled: true, StreamViewType: "NEW_AND_OLD_IMAGES" },
    VectorIndexes: [{
      IndexName: "OrderVectors", VectorAttribute: { AttributeName: "embedding" },
      Projection: { ProjectionType: "KEYS_ONLY" }, Dimensions: 3, DistanceFunction: "COSINE",
    }],
  });
  await ddb(endpoint, "UpdateTimeToLive", {
    TableName: "Orders", TimeToLiveSpecification: { Enabled: true, AttributeName: "expiresAt" },
  });
  const nowS = Math.floor((await control("clock")).now_ms / 1000);
  for (let i = 1; i <= 3; i++)
    await ddb(endpoint, "PutItem", { TableName: "Orders", Item: {
      pk: { S: "CUSTOMER#1" }, sk: { S: `ORDER#00${i}` }, status: { S: "SHIPPED" }, total: { N: String(10 * i) } } });
  // Expires in an hour of engine time.
  await ddb(endpoint, "PutItem", { TableName: "Orders", Item: {
    pk: { S: "SESSION#temp" }, sk: { S: "CART" }, expiresAt: { N: String(nowS + 3600) } } });
}

/** About 1,900 WCU into one partition key within a second: 190 items of 10 KB. */
async function hotBurst(endpoint) {
  const filler = "x".repeat(10 * 1024 - 64);
  const writes = [];
  for (let b = 0; b < 8; b++) {
    const batch = [];
    for (let i = 0; i < 24; i++)
      batch.push({ PutRequest: { Item: { pk: { S: "HOT#1" }, sk: { S: `E#${b}-${i}` }, body: { S: filler } } } });
    writes.push(ddb(endpoint, "BatchWriteItem", { RequestItems: { Orders: batch } }));
  }
  await Promise.all(writes);
}

test("the console shows tables, items, stream records, the clock and hot partitions", { timeout: 90_000 }, async (t) => {
  if (!CHROMIUM) {
    const message = "Chromium is not installed (Debian package 'chromium', in scripts/lib.sh): the console's browser test cannot run";
    console.error(`\n*** ${message} ***\n`);
    if (process.env.CI) assert.fail(message);
    t.skip(message);
    return;
  }
  const { chromium } = await import("playwright-core");
  const shots = screenshotDir();
  // Expired items go only when the test sweeps, so the sweep's count is known.
  const server = await startDdbemu("--ttl-interval", "3600");
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox"] });
  try {
    await createOrders(server.endpoint, server.control);
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();
    const errors = [];
    page.on("pageerror", (e) => errors.push(e.message));
    page.on("dialog", (d) => d.accept());
    const base = `${server.endpoint}/ddbemu/ui/?access_key=${ACCESS_KEY}&region=${REGION}`;

    // Tables: the key schema, indexes, item count, TTL and stream settings.
    await page.goto(`${base}#/tables`);
    const row = page.locator('#tables tr[data-table="Orders"]');
    await row.waitFor();
    const rowText = await row.innerText();
    for (const want of ["pk (S)", "sk (S)", "4", "On · expiresAt", "On · NEW_AND_OLD_IMAGES", "On-demand"])
      assert.ok(rowText.includes(want), `tables row shows ${want}: ${rowText}`);
    await page.screenshot({ path: join(shots, "01-tables.png") });
    await page.click('#tables a:text("Orders")');
    await page.locator("text=ByStatus").waitFor();
    // The vector index, in its own panel.
    const vectors = page.locator("#vector-indexes");
    await vectors.locator("text=OrderVectors").waitFor();
    const vectorText = await vectors.innerText();
    for (const want of ["Vector indexes (1)", "embedding", "COSINE", "Keys only"])
      assert.ok(vectorText.includes(want), `vector panel shows ${want}: ${vectorText}`);
    await page.screenshot({ path: join(shots, "02-table-details.png"), fullPage: true });

    // A second tab tails the stream from now on.
    const tail = await context.newPage();
    await tail.goto(`${base}#/streams/Orders`);
    await tail.selectOption("#tail-from", "LATEST");
    await tail.locator("#tail-status:has-text('Tailing')").waitFor();

    // Create an item in Explore items, then find it with a query.
    await page.goto(`${base}#/items/Orders`);
    await page.click("#create-item");
    await page.fill("#item-text", JSON.stringify({
      pk: { S: "CUSTOMER#42" }, sk: { S: "ORDER#2026-001" }, status: { S: "PLACED" }, total: { N: "129.95" },
      lines: { L: [{ M: { sku: { S: "BOOK-1" }, qty: { N: "2" } } }] },
    }, null, 2));
    await page.click("#item-save");
    await page.locator("#item-editor").waitFor({ state: "detached" });
    await page.fill("#q-pk", "CUSTOMER#42");
    await page.selectOption("#q-skop", "begins_with");
    await page.fill("#q-sk", "ORDER#2026");
    await page.click("#q-run");
    const found = page.locator("#items tbody tr");
    await found.first().waitFor();
    assert.equal(await found.count(), 1);
    assert.match(await found.first().innerText(), /ORDER#2026-001[\s\S]*129\.95/);
    await page.screenshot({ path: join(shots, "03-explore-items.png") });
    await page.click('button[data-format="plain"]');
    assert.match(await page.locator("#items-json").innerText(), /"total": 129\.95/);
    await page.screenshot({ path: join(shots, "04-items-plain-json.png") });

    // Edit it: the change is a PutItem of the whole item.
    await page.click('button[data-format="grid"]');
    await found.first().locator("text=Edit").click();
    const edited = JSON.parse(await page.inputValue("#item-text"));
    edited.total = { N: "99.5" };
    await page.fill("#item-text", JSON.stringify(edited));
    await page.click("#item-save");
    await page.locator("#items tbody tr", { hasText: "99.5" }).waitFor();

        // ... and through the index.
    await page.selectOption("#q-index", "ByStatus");
    await page.fill("#q-pk", "PLACED");
    await page.click("#q-run");
    await page.locator("#items tbody tr", { hasText: "ORDER#2026-001" }).waitFor();

        // Its INSERT record arrives in the tail.
    const insert = tail.locator('li.record[data-event="INSERT"]', { hasText: "CUSTOMER#42" });
    await insert.waitFor({ timeout: 15_000 });
    await insert.locator(".record-head").click();
    await tail.screenshot({ path: join(shots, "05-stream-tail.png") });

    // The TTL item is there until the clock passes its expiry and the sweep runs.
    await page.selectOption("#q-index", "");
    await page.fill("#q-pk", "SESSION#temp");
    await page.fill("#q-sk", "");
    await page.click("#q-run");
    await page.locator("#items tbody tr", { hasText: "CART" }).waitFor();
    await page.goto(`${base}#/clock`);
    await page.fill("#advance-amount", "2");
    await page.selectOption("#advance-unit", { label: "hours" });
    await page.click("#advance");
    await page.click("#ttl-sweep");
    await page.locator("#sweep-result:has-text('Deleted 1 expired item.')").waitFor();
    await page.screenshot({ path: join(shots, "06-clock.png") });
    await page.goto(`${base}#/items/Orders`);
    await page.fill("#q-pk", "SESSION#temp");
    await page.click("#q-run");
    await page.locator("#results .empty:has-text('No items')").waitFor();
    await tail.locator('li.record[data-event="REMOVE"]', { hasText: "SESSION#temp" }).locator("text=TTL delete").waitFor({ timeout: 15_000 });

    // A hot partition: its busiest second is drawn past the 1,000 WCU/s limit.
    await page.goto(`${base}#/monitor/Orders`);
    await page.locator("#heat-writes").waitFor();
    await hotBurst(server.endpoint);
    const hot = page.locator('#peak-writes g.over-limit[data-label="HOT#1"]');
    await hot.waitFor({ timeout: 15_000 });
    // ... and the heat chart has drawn a line for it, with a point over the limit.
    await page.locator("#heat-writes .legend", { hasText: "HOT#1" }).waitFor({ timeout: 15_000 });
    await page.locator("#heat-writes circle.over-limit").first().waitFor();
    await page.waitForTimeout(2500); // one more sample, so the line has its fall too
    // The consistency model's counters (docs/consistency.md): 0 while it is off.
    await page.locator("#consistency .tile", { hasText: "Stale reads" }).waitFor();
    await page.locator("#consistency .tile", { hasText: "Transaction conflicts" }).waitFor();
    await page.screenshot({ path: join(shots, "07-monitor.png"), fullPage: true });

    // The MODIFY of the edit arrived too.
    await tail.locator('li.record[data-event="MODIFY"]', { hasText: "CUSTOMER#42" }).waitFor();

        // Paging with LastEvaluatedKey through the hot partition's 192 items.
    await page.goto(`${base}#/items/Orders`);
    await page.fill("#q-pk", "HOT#1");
    await page.selectOption("#q-limit", "50");
    await page.click("#q-run");
    await page.locator("#items tbody tr >> nth=49").waitFor();
    const first = await page.locator("#items tbody tr >> nth=0").innerText();
    for (let p = 2; p <= 4; p++) {
      await page.click("#next-page");
      await page.locator(`#page-no:has-text('Page ${p}')`).waitFor();
    }
    await page.locator("#items tbody tr", { hasText: "E#7-23" }).waitFor();
    assert.equal(await page.locator("#items tbody tr").count(), 42);
    assert.ok(await page.locator("#next-page").isDisabled());
    await page.click("text=‹ Previous");
    await page.locator("#page-no:has-text('Page 3')").waitFor();
    assert.notEqual(await page.locator("#items tbody tr >> nth=0").innerText(), first);

    // Delete an item from its editor: its REMOVE record follows.
    const doomed = (await page.locator("#items tbody tr >> nth=0").innerText()).match(/E#\d+-\d+/)[0];
    await page.click("#items tbody tr >> nth=0 >> text=Edit");
    await page.click("#item-delete");
    await page.locator("#items tbody tr", { hasText: doomed }).waitFor({ state: "detached" });
    await tail.locator('li.record[data-event="REMOVE"]', { hasText: doomed }).waitFor();

        assert.deepEqual(errors, [], "no script errors on the page");
  } finally {
    await browser.close();
    await server.stop();
  }
});

test("Explore items searches a vector index with SearchVectors", { timeout: 60_000 }, async (t) => {
  if (!CHROMIUM) {
    const message = "Chromium is not installed (Debian package 'chromium', in scripts/lib.sh): the console's browser test cannot run";
    if (process.env.CI) assert.fail(message);
    t.skip(message);
    return;
  }
  const { chromium } = await import("playwright-core");
  const shots = screenshotDir();
  const server = await startDdbemu();
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox"] });
  try {
    // Agent memories: a COSINE index partitioned by agent, projecting only keys.
    await ddb(server.endpoint, "CreateTable", {
      TableName: "Memories", BillingMode: "PAY_PER_REQUEST",
      AttributeDefinitions: [{ AttributeName: "id", AttributeType: "S" }, { AttributeName: "agent", AttributeType: "S" }],
      KeySchema: [{ AttributeName: "id", KeyType: "HASH" }],
      VectorIndexes: [{
        IndexName: "ByMeaning", VectorAttribute: { AttributeName: "embedding" },
        SearchSchema: [{ AttributeName: "agent", SearchSchemaElementType: "HASH" }],
        Projection: { ProjectionType: "KEYS_ONLY" }, Dimensions: 3, DistanceFunction: "COSINE",
      }],
    });
    const memories = [["m1", "a1", [1, 0, 0], "likes tea"], ["m2", "a1", [0.9, 0.1, 0], "likes green tea"],
      ["m3", "a1", [0, 0, 1], "lives in Lyon"], ["m4", "a2", [1, 0, 0], "another agent"]];
    for (const [id, agent, v, text] of memories)
      await ddb(server.endpoint, "PutItem", { TableName: "Memories", Item: {
        id: { S: id }, agent: { S: agent }, text: { S: text }, embedding: { L: v.map((x) => ({ N: String(x) })) } } });
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();
    const errors = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await page.goto(`${server.endpoint}/ddbemu/ui/?access_key=${ACCESS_KEY}&region=${REGION}#/items/Memories`);
    await page.click('button[data-mode="search"]');
    await page.fill("#q-vector", "1, 0, 0");
    await page.fill("#q-topk", "2");
    await page.fill("#q-hash", "a1");
    await page.click("#q-run");
    const rows = page.locator("#items tbody tr");
    await rows.nth(1).waitFor();
    assert.equal(await rows.count(), 2);
    // Best first: m1 (score 0), then m2; a2's identical vector is in another partition.
    assert.match(await rows.nth(0).innerText(), /^\s*Edit\s+0\s+m1/);
    assert.match(await rows.nth(1).innerText(), /m2/);
    assert.match(await page.locator("#results-meta").innerText(), /SearchVectors · 2 nearest · 1024 vector search bytes/);
    await page.screenshot({ path: join(shots, "08-vector-search.png") });
    // KEYS_ONLY results hold the keys and the HASH; the editor reads the whole item.
    await rows.nth(0).locator("text=Edit").click();
    const item = JSON.parse(await page.inputValue("#item-text"));
    assert.deepEqual(item.text, { S: "likes tea" });
    await page.click("#item-editor >> text=Cancel");
    // A search vector of the wrong length gets DynamoDB's error.
    await page.fill("#q-vector", "1, 0");
    await page.click("#q-run");
    await page.locator("text=Input search vector dimension 2 does not match vector index dimension 3").waitFor();
    assert.deepEqual(errors, [], "no script errors on the page");
  } finally {
    await browser.close();
    await server.stop();
  }
});
