// SPDX-License-Identifier: MIT
//
// Every member of the latest service model: the DynamoDB model bundled in the
// pinned @aws-sdk/client-dynamodb (package.json) against what ddbemu knows.
//
// - Every operation of the model is answered: sent through the SDK with an
//   empty input, the answer is anything but UnknownOperationException.
// - Every input member of every operation, at any depth, is declared by
//   ddbemu's request shapes (the field tables of api/ops, dumped by the
//   emulator-only GET /ddbemu/shapes), with a compatible JSON type. A member
//   the field tables do not declare is ignored by ddbemu's shape checker, so
//   a request using it would be silently misread: the test names it.
//
// When AWS adds to the model, bumping the pinned SDK makes this test name what
// is missing. Nothing is excluded.
//
// How the SDK's schemas read (its CJS entry exports every schema as
// `<Shape>$`): an operation is [9, ns, name, traits, input, output]; a
// structure or union [3|4, ns, name, traits, [member names], [member
// schemas], requiredCount]; a list [1, ns, name, traits, member]; a map [2,
// ns, name, traits, key, value]; a simple shape [0, ns, name, traits, base].
// A member schema is a number (0 string, 1 number, 2 boolean, 4 timestamp,
// 21 blob, 64|x a list of x, 128|x a map of x), a schema, a thunk returning
// one, or [schema, traits].

import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { after, before, test } from "node:test";

import { credentials, region, startDdbemu } from "./ddbemu.mjs";

const require = createRequire(import.meta.url);
const sdk = require("@aws-sdk/client-dynamodb");
const { DynamoDBClient } = sdk;

const TARGET_PREFIX = "DynamoDB_20120810.";

// ---------------------------------------------------------------------------
// the SDK's model
// ---------------------------------------------------------------------------

function resolve(s) {
  for (;;) {
    if (typeof s === "function") s = s();
    else if (Array.isArray(s) && s.length === 2) s = s[0]; // [schema, traits]
    else return s;
  }
}

/** What kind of JSON value a schema takes, and what is inside it. */
function describe(s) {
  s = resolve(s);
  if (typeof s === "number") {
    if (s & 64) return { kind: "list", member: s & ~64 };
    if (s & 128) return { kind: "map", value: s & ~128 };
    return { kind: { 0: "string", 1: "number", 2: "boolean", 4: "timestamp", 21: "blob" }[s] ?? `code ${s}` };
  }
  assert.ok(Array.isArray(s), `unexpected schema ${String(s)}`);
  switch (s[0]) {
    case 0:
      return { ...describe(s[4]), name: s[2] };
    case 1:
      return { kind: "list", name: s[2], member: s[4] };
    case 2:
      return { kind: "map", name: s[2], value: s[5] };
    case 3:
    case 4:
      return { kind: s[0] === 3 ? "structure" : "union", name: s[2], names: s[4], members: s[5] };
    default:
      throw new Error(`unexpected schema kind ${s[0]} (${s[2]})`);
  }
}

/**
 * Every input member path of every operation of the model:
 * Map(operation name -> Map(path -> {kind, name})). A list's element is
 * "[]", a map's value "{}". AttributeValue (recursive) is a leaf.
 */
function modelInputs() {
  const ops = new Map();
  for (const [key, schema] of Object.entries(sdk)) {
    if (!key.endsWith("$") || !Array.isArray(schema) || schema[0] !== 9) continue;
    const paths = new Map();
    const walk = (s, path, seen) => {
      const d = describe(s);
      if (path) paths.set(path, d);
      if (d.name === "AttributeValue" || seen.includes(d.name)) return;
      const inner = d.name ? [...seen, d.name] : seen;
      if (d.kind === "list") walk(d.member, path + "[]", inner);
      else if (d.kind === "map") walk(d.value, path + "{}", inner);
      else if (d.kind === "structure" || d.kind === "union")
        d.names.forEach((n, i) => walk(d.members[i], path ? `${path}.${n}` : n, inner));
    };
    walk(schema[4], "", []);
    ops.set(schema[2], paths);
  }
  return ops;
}

// ---------------------------------------------------------------------------
// the comparison
// ---------------------------------------------------------------------------

/** Whether ddbemu's type (shapes.c) takes the model's kind of value. */
function compatible(model, ours) {
  switch (model.kind) {
    case "string":
      return ours === "string";
    case "number":
      return ["integer", "long", "double"].includes(ours);
    case "timestamp":
      return ["double", "long", "integer"].includes(ours);
    case "boolean":
      return ours === "boolean";
    case "blob":
      return ours === "blob";
    case "list":
      return ours === "list";
    case "map":
      return ours === "map" || (ours === "attribute_map" && model.value && describe(model.value).name === "AttributeValue");
    case "structure":
      return ours === "structure";
    case "union":
      return model.name === "AttributeValue" ? ours === "attribute_value" : ours === "structure";
    default:
      return false;
  }
}

/**
 * The problems of ddbemu's shapes (the /ddbemu/shapes answer's "operations")
 * against the model: one line per missing operation, missing member, type
 * mismatch.
 */
function compareShapes(model, shapes) {
  const problems = [];
  for (const [op, paths] of model) {
    const ours = shapes[TARGET_PREFIX + op];
    if (!ours) {
      problems.push(`${op}: operation has no request shape in ddbemu`);
      continue;
    }
    // Below a member ddbemu takes as AttributeValue(s), wire_value.c checks.
    // A missing member is named once, not with everything below it.
    const below = (path, parents) => parents.some((l) => path.startsWith(l + "{") || path.startsWith(l + "[") || path.startsWith(l + "."));
    const leaves = Object.keys(ours).filter((p) => ours[p] === "attribute_value" || ours[p] === "attribute_map");
    const missing = [];
    for (const [path, d] of paths) {
      if (below(path, leaves) || below(path, missing)) continue;
      if (!(path in ours)) {
        missing.push(path);
        problems.push(`${op}.${path}: missing from ddbemu's request shapes (${d.kind}${d.name ? " " + d.name : ""})`);
      } else if (!compatible(d, ours[path])) problems.push(`${op}.${path}: ddbemu declares ${ours[path]}, the model ${d.kind}`);
    }
  }
  return problems;
}

// ---------------------------------------------------------------------------
// the tests
// ---------------------------------------------------------------------------

let emu, client, model, shapes;

before(async () => {
  emu = await startDdbemu();
  client = new DynamoDBClient({ endpoint: emu.endpoint, region, credentials, maxAttempts: 1 });
  model = modelInputs();
  shapes = (await emu.control("shapes")).operations;
});

after(async () => {
  client?.destroy();
  await emu?.stop();
});

test("the model is read: operations and members are found", () => {
  // A change in how the SDK bundles its schemas must not make this vacuous.
  assert.ok(model.size >= 62, `only ${model.size} operations found in the SDK`);
  assert.ok(model.get("PutItem").has("Item"));
  assert.ok(model.get("UpdateTable").has("ReplicaUpdates[].Create.RegionName"));
  assert.ok(model.get("BatchWriteItem").has("RequestItems{}[].PutRequest.Item"));
});

test("every operation of the model is answered (not UnknownOperationException)", async () => {
  const unknown = [];
  for (const op of model.keys()) {
    const Command = sdk[`${op}Command`];
    assert.ok(Command, `no ${op}Command in the SDK`);
    try {
      await client.send(new Command({}));
    } catch (err) {
      if (err.name === "UnknownOperationException") unknown.push(op);
    }
  }
  assert.deepEqual(unknown, []);
});

test("every input member of the model is in ddbemu's request shapes", () => {
  assert.deepEqual(compareShapes(model, shapes), []);
});

test("the comparison names a member ddbemu's shapes lack", () => {
  // The failing proof, kept: drop one nested member and one top-level member
  // from ddbemu's answer, and the comparison must name both.
  const copy = structuredClone(shapes);
  delete copy[TARGET_PREFIX + "PutItem"].ReturnValuesOnConditionCheckFailure;
  delete copy[TARGET_PREFIX + "UpdateTable"]["ReplicaUpdates[].Create.RegionName"];
  const problems = compareShapes(model, copy);
  assert.deepEqual(
    problems.filter((p) => !compareShapes(model, shapes).includes(p)),
    [
      "PutItem.ReturnValuesOnConditionCheckFailure: missing from ddbemu's request shapes (string)",
      "UpdateTable.ReplicaUpdates[].Create.RegionName: missing from ddbemu's request shapes (string)",
    ],
  );
});
