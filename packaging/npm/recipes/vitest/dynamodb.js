import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { forkForWorker } from "ddbemu";
import { afterAll, inject } from "vitest";

// Each test file forks the seed into its worker's own access key (from
// VITEST_POOL_ID: ddbemu1, ddbemu2, ...): it starts from the seed and sees
// only its own writes, whatever the files in other workers do.
export const fork = await forkForWorker("seed", { endpoint: inject("ddbemuEndpoint") });
export const client = new DynamoDBClient(fork.clientConfig);
afterAll(() => client.destroy());
