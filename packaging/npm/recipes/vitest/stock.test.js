// Both test files create the same table at the same time, in two workers:
// their access keys keep them apart.
import { CreateTableCommand, DeleteTableCommand, ListTablesCommand } from "@aws-sdk/client-dynamodb";
import { expect, test } from "vitest";
import { client } from "./dynamodb.js";

test("stock: a table of this worker's own", async () => {
  await client.send(
    new CreateTableCommand({
      TableName: "shared-name",
      AttributeDefinitions: [{ AttributeName: "pk", AttributeType: "S" }],
      KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }],
      BillingMode: "PAY_PER_REQUEST",
    }),
  );
  expect((await client.send(new ListTablesCommand({}))).TableNames).toEqual(["shared-name"]);
  await new Promise((resolve) => setTimeout(resolve, 500)); // overlap the other file
  await client.send(new DeleteTableCommand({ TableName: "shared-name" }));
});
