import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { afterAll, inject } from "vitest";

// One access key per Vitest worker: ddbemu gives each key its own tables, so
// tests in parallel workers never see each other's.
export const client = new DynamoDBClient({
  endpoint: inject("ddbemuEndpoint"),
  region: "us-east-1",
  credentials: { accessKeyId: `worker${process.env.VITEST_POOL_ID}`, secretAccessKey: "x" },
});
afterAll(() => client.destroy());
