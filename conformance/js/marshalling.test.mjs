// SPDX-License-Identifier: MIT
//
// The document client's marshalling options against ddbemu: what
// removeUndefinedValues and convertClassInstanceToMap change, numbers beyond
// JavaScript's safe integers through NumberValue (and BigInt), and binary
// values. Everything here holds on DynamoDB.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import { CreateTableCommand, DynamoDBClient, GetItemCommand } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient, GetCommand, NumberValue, PutCommand, QueryCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";

import { credentials, region, startDdbemu } from "./ddbemu.mjs";

const TableName = "marshalling";
let emu, client;
const clients = [];

/**
 * A document client with its own DynamoDBClient: document clients made with
 * from() on one DynamoDBClient share its config, so the last one's
 * marshalling options would apply to all of them.
 */
function docClient(translateConfig) {
  const base = new DynamoDBClient({ endpoint: emu.endpoint, region, credentials });
  clients.push(base);
  return DynamoDBDocumentClient.from(base, translateConfig);
}

before(async () => {
  emu = await startDdbemu();
  client = new DynamoDBClient({ endpoint: emu.endpoint, region, credentials });
  await client.send(
    new CreateTableCommand({
      TableName,
      BillingMode: "PAY_PER_REQUEST",
      AttributeDefinitions: [
        { AttributeName: "pk", AttributeType: "S" },
        { AttributeName: "sk", AttributeType: "N" },
      ],
      KeySchema: [
        { AttributeName: "pk", KeyType: "HASH" },
        { AttributeName: "sk", KeyType: "RANGE" },
      ],
    }),
  );
});

after(async () => {
  client?.destroy();
  for (const c of clients) c.destroy();
  await emu?.stop();
});

const raw = async (pk, sk) =>
  (await client.send(new GetItemCommand({ TableName, Key: { pk: { S: pk }, sk: { N: String(sk) } }, ConsistentRead: true })))
    .Item;

test("removeUndefinedValues: off, an undefined value is refused before sending; on, it is left out", async () => {
  const strict = docClient();
  await assert.rejects(
    strict.send(new PutCommand({ TableName, Item: { pk: "u", sk: 1, nested: { gone: undefined } } })),
    /removeUndefinedValues/,
  );
  assert.equal(await raw("u", 1), undefined);

  const lenient = docClient({ marshallOptions: { removeUndefinedValues: true } });
  await lenient.send(
    new PutCommand({ TableName, Item: { pk: "u", sk: 1, gone: undefined, kept: "yes", nested: { a: 1, b: undefined }, list: [1, undefined, 2] } }),
  );
  assert.deepEqual(await raw("u", 1), {
    pk: { S: "u" },
    sk: { N: "1" },
    kept: { S: "yes" },
    nested: { M: { a: { N: "1" } } },
    list: { L: [{ N: "1" }, { N: "2" }] },
  });
});

class Address {
  constructor(city, zip) {
    this.city = city;
    this.zip = zip;
  }
  get label() {
    return `${this.zip} ${this.city}`;
  }
}

test("convertClassInstanceToMap: a class instance becomes a map of its own fields", async () => {
  const strict = docClient();
  await assert.rejects(
    strict.send(new PutCommand({ TableName, Item: { pk: "c", sk: 1, address: new Address("Tokyo", "100-0001") } })),
    /convertClassInstanceToMap/,
  );
  const doc = docClient({ marshallOptions: { convertClassInstanceToMap: true } });
  await doc.send(new PutCommand({ TableName, Item: { pk: "c", sk: 1, address: new Address("Tokyo", "100-0001") } }));
  assert.deepEqual((await raw("c", 1)).address, { M: { city: { S: "Tokyo" }, zip: { S: "100-0001" } } });
  const { Item } = await doc.send(new GetCommand({ TableName, Key: { pk: "c", sk: 1 } }));
  assert.deepEqual(Item.address, { city: "Tokyo", zip: "100-0001" });
});

test("numbers beyond Number.MAX_SAFE_INTEGER: NumberValue and BigInt keep every digit", async () => {
  const big = "123456789012345678901234567890.12345678"; // 38 significant digits
  const wrapped = docClient({ unmarshallOptions: { wrapNumbers: true } });
  await wrapped.send(
    new PutCommand({
      TableName,
      Item: { pk: "n", sk: NumberValue.from("9007199254740993"), big: NumberValue.from(big), visits: 9007199254740993n },
    }),
  );
  const stored = await raw("n", "9007199254740993");
  assert.equal(stored.big.N, big);
  assert.equal(stored.visits.N, "9007199254740993");

  const { Item } = await wrapped.send(new GetCommand({ TableName, Key: { pk: "n", sk: NumberValue.from("9007199254740993") } }));
  assert.ok(Item.big instanceof NumberValue);
  assert.equal(Item.big.toString(), big);
  assert.equal(Item.sk.toString(), "9007199254740993");

  // Arithmetic on the server keeps the precision JavaScript numbers lose.
  const { Attributes } = await wrapped.send(
    new UpdateCommand({
      TableName,
      Key: { pk: "n", sk: NumberValue.from("9007199254740993") },
      UpdateExpression: "SET visits = visits + :one",
      ExpressionAttributeValues: { ":one": 1 },
      ReturnValues: "UPDATED_NEW",
    }),
  );
  assert.equal(Attributes.visits.toString(), "9007199254740994");

  // Without wrapNumbers the document client refuses to round such a number.
  const plain = docClient();
  await assert.rejects(
    plain.send(new GetCommand({ TableName, Key: { pk: "n", sk: NumberValue.from("9007199254740993") } })),
    /wrapNumbers/,
  );
  // An unsafe JavaScript number is refused before it is sent.
  await assert.rejects(plain.send(new PutCommand({ TableName, Item: { pk: "n", sk: 2, x: 2 ** 60 } })), /MAX_SAFE_INTEGER/);

  // 39 significant digits are more than DynamoDB keeps.
  await assert.rejects(
    wrapped.send(new PutCommand({ TableName, Item: { pk: "n", sk: 3, x: NumberValue.from("1234567890123456789012345678901234567891") } })),
    (err) => err.name === "ValidationException" && /significant digits/.test(err.message),
  );
  // A query with a NumberValue in its key condition.
  const q = await wrapped.send(
    new QueryCommand({
      TableName,
      KeyConditionExpression: "pk = :p AND sk > :s",
      ExpressionAttributeValues: { ":p": "n", ":s": NumberValue.from("9007199254740992") },
    }),
  );
  assert.deepEqual(
    q.Items.map((i) => i.sk.toString()),
    ["9007199254740993"],
  );
});

test("binary values and sets: Uint8Array in, Uint8Array out, base64 on the wire", async () => {
  const doc = docClient();
  const bytes = new Uint8Array([0, 1, 2, 253, 254, 255]);
  await doc.send(
    new PutCommand({
      TableName,
      Item: {
        pk: "b",
        sk: 1,
        photo: bytes,
        photos: new Set([new Uint8Array([1]), new Uint8Array([2, 3])]),
        tags: new Set(["a", "b"]),
        scores: new Set([1, 2.5]),
        empty: new Uint8Array(0),
      },
    }),
  );
  const stored = await raw("b", 1);
  assert.deepEqual(stored.photo.B, bytes);
  assert.equal(stored.photos.BS.length, 2);
  assert.deepEqual([...stored.tags.SS].sort(), ["a", "b"]);
  assert.deepEqual([...stored.scores.NS].sort(), ["1", "2.5"]);
  assert.deepEqual(stored.empty.B, new Uint8Array(0));

  const { Item } = await doc.send(new GetCommand({ TableName, Key: { pk: "b", sk: 1 } }));
  assert.ok(Item.photo instanceof Uint8Array);
  assert.deepEqual(Item.photo, bytes);
  assert.ok(Item.photos instanceof Set);
  assert.deepEqual(
    [...Item.photos].map((b) => [...b]).sort(),
    [[1], [2, 3]],
  );
  assert.deepEqual(Item.tags, new Set(["a", "b"]));

  // A binary value in a condition compares bytes.
  await doc.send(
    new UpdateCommand({
      TableName,
      Key: { pk: "b", sk: 1 },
      UpdateExpression: "SET seen = :t",
      ConditionExpression: "photo = :b AND contains(photos, :one)",
      ExpressionAttributeValues: { ":t": true, ":b": bytes, ":one": new Uint8Array([1]) },
    }),
  );
  assert.equal((await raw("b", 1)).seen.BOOL, true);
  // An empty set is refused by the document client (no such DynamoDB value).
  await assert.rejects(doc.send(new PutCommand({ TableName, Item: { pk: "b", sk: 2, s: new Set() } })), /empty set/i);
});
