// SPDX-License-Identifier: MIT
//
// common.mjs - what the seed-design examples share: their command line
// (--endpoint URL, --region REGION), the AWS SDK for JavaScript v3 (taken
// from a node_modules above the example, or else from conformance/js's, where
// `npm ci` installs the pinned versions), a fresh table per run, and check().
// See docs/seed-designs.md.

import { createRequire } from "node:module";

const fallback = createRequire(new URL("../../conformance/js/package.json", import.meta.url));

/** One SDK package: the usual resolution first, then conformance/js/node_modules. */
export async function loadSdk(name) {
  try {
    return await import(name);
  } catch {
    return fallback(name);
  }
}

/** --endpoint URL (default http://localhost:8000) and --region (default us-east-1 or AWS_REGION). */
export function parseArgs(argv = process.argv.slice(2)) {
  const args = { endpoint: "http://localhost:8000", region: process.env.AWS_REGION || "us-east-1" };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--endpoint") args.endpoint = argv[++i];
    else if (argv[i] === "--region") args.region = argv[++i];
    else {
      console.error(`usage: node ${process.argv[1]} [--endpoint URL] [--region REGION]`);
      process.exit(2);
    }
  }
  return args;
}

/** The client configuration: ddbemu takes any credentials; AWS's own are used when set. */
export function clientConfig({ endpoint, region }) {
  const credentials = process.env.AWS_ACCESS_KEY_ID
    ? undefined
    : { accessKeyId: "local", secretAccessKey: "local" };
  return { endpoint, region, ...(credentials && { credentials }) };
}

/** Deletes the table if a previous run left it (turning deletion protection off), then creates it. */
export async function freshTable(sdk, client, input) {
  const { TableName } = input;
  try {
    const { Table } = await client.send(new sdk.DescribeTableCommand({ TableName }));
    if (Table.DeletionProtectionEnabled) {
      await client.send(new sdk.UpdateTableCommand({ TableName, DeletionProtectionEnabled: false }));
    }
    await client.send(new sdk.DeleteTableCommand({ TableName }));
    await sdk.waitUntilTableNotExists({ client, maxWaitTime: 120 }, { TableName });
  } catch (err) {
    if (err.name !== "ResourceNotFoundException") throw err;
  }
  await client.send(new sdk.CreateTableCommand(input));
  await sdk.waitUntilTableExists({ client, maxWaitTime: 120 }, { TableName });
}

/** Stops the example with a message when the design does not behave as it should. */
export function check(condition, message) {
  if (!condition) throw new Error(`check failed: ${message}`);
}

/** Runs main, printing an error and exiting 1 if it throws. */
export function run(main) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
