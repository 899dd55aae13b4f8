// Both test files run at the same time in two workers, write into the same
// table name and delete seed items: their forks keep them apart.
import { DeleteItemCommand, PutItemCommand } from "@aws-sdk/client-dynamodb";
import { expect, test } from "vitest";
import { keys, meetTheOtherFile, seeds } from "./check.js";
import { client, fork } from "./dynamodb.js";

test("orders: the seed, then this worker's writes only", async () => {
  expect(fork.accessKeyId).toBe(`ddbemu${process.env.VITEST_POOL_ID}`);
  await meetTheOtherFile("orders");
  expect(await keys(client)).toEqual(seeds);
  await client.send(new PutItemCommand({ TableName: "Orders", Item: { pk: { S: "order#1" } } }));
  await client.send(new DeleteItemCommand({ TableName: "Orders", Key: { pk: { S: "seed#0" } } }));
  await new Promise((resolve) => setTimeout(resolve, 300)); // the other file writes meanwhile
  expect(await keys(client)).toEqual([...seeds.slice(1), "order#1"].sort());
});
