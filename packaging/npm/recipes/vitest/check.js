// What the recipe's two test files check with (not part of the recipe).
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ScanCommand } from "@aws-sdk/client-dynamodb";

export const seeds = Array.from({ length: 10 }, (_, i) => `seed#${i}`).sort();

export async function keys(client) {
  const page = await client.send(new ScanCommand({ TableName: "Orders", ConsistentRead: true }));
  return page.Items.map((item) => item.pk.S).sort();
}

// With DDB_RECIPE_MEETING (packaging/npm/verify sets it to an empty
// directory), waits until both test files are running, so that the test
// shows two workers apart at the same time, not one after the other.
export async function meetTheOtherFile(name) {
  const dir = process.env.DDB_RECIPE_MEETING;
  if (!dir) return;
  writeFileSync(join(dir, name), "");
  for (let i = 0; readdirSync(dir).length < 2; i++) {
    if (i > 600) throw new Error("the other test file did not start within 60 s");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

