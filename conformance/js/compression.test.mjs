// SPDX-License-Identifier: MIT
//
// Compressed HTTP through the AWS SDK for JavaScript v3: requests sent with
// Content-Encoding: gzip, answers asked for with Accept-Encoding: gzip.
//
// The SDK's own Node.js handler neither asks for compressed answers nor
// checks x-amz-crc32, so this file plugs in a request handler that does what
// the AWS SDK for Go v2 does for DynamoDB by default
// (service/dynamodb/internal/customizations): send Accept-Encoding: gzip,
// then "HTTP Response -> Checksum -> gzip decompress -> deserialize", the
// CRC32 being that of the bytes on the wire. Requests are gzipped before
// signing, as the SDKs' request compression does. Everything else is the
// stock client: marshalling, signing, the deserializer.

import assert from "node:assert/strict";
import { request as httpRequest } from "node:http";
import { Readable } from "node:stream";
import { after, before, test } from "node:test";
import { crc32, gunzipSync, gzipSync } from "node:zlib";

import { DynamoDB } from "@aws-sdk/client-dynamodb";

import { credentials, region, startDdbemu } from "./ddbemu.mjs";

let emu;
const seen = []; // what each answer looked like on the wire

/** A request handler that asks for gzip and validates x-amz-crc32 over the wire bytes. */
const checkingHandler = {
  metadata: { handlerProtocol: "http/1.1" },
  handle(request) {
    return new Promise((resolve, reject) => {
      const path = request.path + (request.query && Object.keys(request.query).length
        ? "?" + new URLSearchParams(request.query) : "");
      const req = httpRequest({
        method: request.method, hostname: request.hostname, port: request.port, path,
        headers: { ...request.headers, "accept-encoding": "gzip" },
      }, (res) => {
        const chunks = [];
        res.on("data", (c) => chunks.push(c));
        res.on("error", reject);
        res.on("end", () => {
          const wire = Buffer.concat(chunks);
          const header = res.headers["x-amz-crc32"];
          if (header !== undefined && Number(header) !== crc32(wire)) {
            reject(new Error(`x-amz-crc32 ${header} does not match the body's ${crc32(wire)}`));
            return;
          }
          const encoding = res.headers["content-encoding"];
          seen.push({ encoding, wireBytes: wire.length, crc: header });
          const body = encoding === "gzip" ? gunzipSync(wire) : wire;
          const headers = { ...res.headers };
          delete headers["content-encoding"];
          headers["content-length"] = String(body.length);
          resolve({ response: { statusCode: res.statusCode, headers, body: Readable.from([body]) } });
        });
      });
      req.on("error", reject);
      req.end(request.body);
    });
  },
  updateHttpClientConfig() {},
  httpHandlerConfigs() {
    return {};
  },
};

/** Gzips the JSON body just before it is signed. */
function gzipRequests(client) {
  client.middlewareStack.addRelativeTo((next) => async (args) => {
    const raw = args.request.body;
    const body = typeof raw === "string" ? Buffer.from(raw) : Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
    args.request.body = gzipSync(body);
    args.request.headers["content-encoding"] = "gzip";
    args.request.headers["content-length"] = String(args.request.body.length);
    return next(args);
  }, { relation: "before", toMiddleware: "httpSigningMiddleware", name: "gzipRequestBody" });
}

before(async () => {
  emu = await startDdbemu();
});

after(async () => {
  await emu.stop();
});

test("gzip both ways through the SDK, with the CRC32 of the compressed answer", async () => {
  const ddb = new DynamoDB({ endpoint: emu.endpoint, region, credentials,
    requestHandler: checkingHandler });
  gzipRequests(ddb);
  const name = `js_gzip_${Date.now()}`;
  await ddb.createTable({
    TableName: name,
    BillingMode: "PAY_PER_REQUEST",
    AttributeDefinitions: [{ AttributeName: "p", AttributeType: "S" }],
    KeySchema: [{ AttributeName: "p", KeyType: "HASH" }],
  });
  const blob = "z".repeat(50000);
  for (let i = 0; i < 5; i++) {
    await ddb.putItem({ TableName: name, Item: { p: { S: `k${i}` }, blob: { S: blob } } });
  }
  seen.length = 0;
  const got = await ddb.getItem({ TableName: name, Key: { p: { S: "k3" } } });
  assert.equal(got.Item.blob.S, blob);
  assert.equal(seen[0].encoding, "gzip");
  assert.ok(seen[0].wireBytes < blob.length / 10, `${seen[0].wireBytes} bytes on the wire`);

  const scan = await ddb.scan({ TableName: name });
  assert.equal(scan.Count, 5);
  assert.ok(scan.Items.every((item) => item.blob.S === blob));

  // An error answer keeps its type through the same path.
  await assert.rejects(ddb.getItem({ TableName: `${name}_missing`, Key: { p: { S: "x" } } }),
    (err) => err.name === "ResourceNotFoundException");
  await ddb.deleteTable({ TableName: name });
});
