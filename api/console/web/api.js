// api.js - how the console talks to ddbemu: the ordinary DynamoDB and
// DynamoDB Streams JSON protocol (so every rule, index and stream record
// applies to what the console does), and the control interface (/ddbemu/).
//
// Requests carry an Authorization header of SigV4's shape for the chosen
// access key and region. ddbemu checks the shape and reads the namespace
// from the credential scope, but never verifies a signature (see
// docs/differences.md), so the console does not compute one.

const state = {
  accessKey: "local",
  region: "us-east-1",
  shared: false, // --shared-db: every access key and region sees the same tables
};

export function namespace() {
  return { accessKey: state.accessKey, region: state.region, shared: state.shared };
}

export function setShared(shared) {
  state.shared = shared;
}

export function setNamespace(accessKey, region) {
  state.accessKey = accessKey || "local";
  state.region = region || "us-east-1";
}

/** A DynamoDB API error, with AWS's type (e.g. "ConditionalCheckFailedException"). */
export class ApiError extends Error {
  constructor(type, message) {
    super(message ? `${type}: ${message}` : type);
    this.type = type;
  }
}

function amzDate(d = new Date()) {
  return d.toISOString().replace(/[-:]/g, "").replace(/\.\d+Z$/, "Z");
}

async function call(prefix, service, operation, body) {
  const date = amzDate();
  const scope = `${state.accessKey}/${date.slice(0, 8)}/${state.region}/${service}/aws4_request`;
  const resp = await fetch("/", {
    method: "POST",
    headers: {
      "Content-Type": "application/x-amz-json-1.0",
      "X-Amz-Target": `${prefix}.${operation}`,
      "X-Amz-Date": date,
      Authorization:
        `AWS4-HMAC-SHA256 Credential=${scope}, ` +
        "SignedHeaders=content-type;host;x-amz-date;x-amz-target, Signature=" + "0".repeat(64),
    },
    body: JSON.stringify(body),
  });
  const text = await resp.text();
  const data = text ? JSON.parse(text) : {};
  if (!resp.ok) {
    const type = String(data.__type || `HTTP ${resp.status}`).split("#").pop();
    throw new ApiError(type, data.message || data.Message || "");
  }
  return data;
}

/** One DynamoDB operation, e.g. ddb("Query", {...}). */
export function ddb(operation, body) {
  return call("DynamoDB_20120810", "dynamodb", operation, body);
}

/** One DynamoDB Streams operation, e.g. streams("GetRecords", {...}). */
export function streams(operation, body) {
  return call("DynamoDBStreams_20120810", "dynamodb", operation, body);
}

/** A control-interface call: GET without a body, POST with one. */
export async function control(path, body) {
  const resp = await fetch(`/ddbemu/${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: body === undefined ? {} : { "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = await resp.json();
  if (!resp.ok) throw new ApiError("ControlError", data.error || `HTTP ${resp.status}`);
  return data;
}

/** The access-pattern report of the chosen namespace (or of one table). */
export function insight(table) {
  const q = `access_key=${encodeURIComponent(state.accessKey)}&region=${encodeURIComponent(state.region)}`;
  return control(`insight${table ? "/" + encodeURIComponent(table) : ""}?${q}`);
}

/** Every table name of the namespace, following LastEvaluatedTableName. */
export async function listTableNames() {
  const names = [];
  let start;
  do {
    const page = await ddb("ListTables", start ? { ExclusiveStartTableName: start } : {});
    names.push(...page.TableNames);
    start = page.LastEvaluatedTableName;
  } while (start);
  return names;
}
