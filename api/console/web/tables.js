// tables.js - the Tables view (every table of the namespace with its key
// schema, indexes, item count, size, TTL and stream) and one table's
// details, all from ListTables, DescribeTable and DescribeTimeToLive.

import { ddb, listTableNames, namespace } from "./api.js";
import { bytes, h, keyText, num, toast } from "./format.js";

/** DescribeTable + DescribeTimeToLive of one table. */
export async function describe(name) {
  const [{ Table }, ttl] = await Promise.all([
    ddb("DescribeTable", { TableName: name }),
    ddb("DescribeTimeToLive", { TableName: name }).catch(() => ({})),
  ]);
  Table.ttl = ttl.TimeToLiveDescription || {};
  return Table;
}

function ttlText(t) {
  const d = t.ttl;
  if (d.TimeToLiveStatus === "ENABLED") return `On · ${d.AttributeName}`;
  if (d.TimeToLiveStatus) return d.TimeToLiveStatus === "DISABLED" ? "Off" : d.TimeToLiveStatus;
  return "Off";
}

function streamText(t) {
  const s = t.StreamSpecification;
  return s && s.StreamEnabled ? `On · ${s.StreamViewType}` : "Off";
}

function statusBadge(status) {
  return h("span", { class: `status ${status === "ACTIVE" ? "ok" : "pending"}` }, status === "ACTIVE" ? "Active" : status);
}

function indexCount(t) {
  return (t.GlobalSecondaryIndexes || []).length + (t.LocalSecondaryIndexes || []).length;
}

export async function renderTables(view) {
  const ns = namespace();
  const names = await listTableNames();
  const tables = await Promise.all(names.map(describe));
  view.replaceChildren(
    h("div", { class: "page-head" },
      h("h1", {}, "Tables ", h("span", { class: "count" }, `(${tables.length})`)),
      h("button", { class: "btn", onclick: () => renderTables(view).catch((e) => toast(e.message, "error")) }, "Refresh")),
    h("p", { class: "muted" }, ns.shared
      ? "Shared database (--shared-db): every access key and region sees these tables."
      : `Access key ${ns.accessKey} · Region ${ns.region}`),
    h("section", { class: "panel" },
      tables.length === 0
        ? h("div", { class: "empty" },
            h("b", {}, "No tables"),
            h("p", {}, "Create tables with the AWS SDKs or CLI, --init or POST /ddbemu/init; they appear here."))
        : h("table", { class: "grid", id: "tables" },
            h("thead", {}, h("tr", {}, ["Name", "Status", "Partition key", "Sort key", "Indexes", "Items", "Size", "TTL", "Stream", "Capacity mode"].map((c) => h("th", {}, c)))),
            h("tbody", {}, tables.map((t) => {
              const pk = t.KeySchema.find((k) => k.KeyType === "HASH");
              const sk = t.KeySchema.find((k) => k.KeyType === "RANGE");
              const def = (k) => (k ? keyText([k], t.AttributeDefinitions) : "–");
              return h("tr", { "data-table": t.TableName },
                h("td", {}, h("a", { href: `#/tables/${encodeURIComponent(t.TableName)}` }, t.TableName)),
                h("td", {}, statusBadge(t.TableStatus)),
                h("td", {}, def(pk)),
                h("td", {}, def(sk)),
                h("td", { class: "num" }, indexCount(t)),
                h("td", { class: "num" }, num(t.ItemCount)),
                h("td", { class: "num" }, bytes(t.TableSizeBytes)),
                h("td", {}, ttlText(t)),
                h("td", {}, streamText(t)),
                h("td", {}, t.BillingModeSummary?.BillingMode === "PAY_PER_REQUEST" ? "On-demand" : "Provisioned"));
            })))));
}

function kv(pairs) {
  return h("dl", { class: "kv" }, pairs.map(([k, v]) => h("div", {}, h("dt", {}, k), h("dd", {}, v ?? "–"))));
}

function projectionText(p) {
  if (!p) return "–";
  if (p.ProjectionType === "INCLUDE") return `Include: ${(p.NonKeyAttributes || []).join(", ")}`;
  return p.ProjectionType === "ALL" ? "All" : "Keys only";
}

/** The table's vector indexes (DescribeTable's VectorIndexes), or nothing. */
function vectorSection(t) {
  const list = t.VectorIndexes || [];
  if (list.length === 0) return "";
  const schema = (v) => (v.SearchSchema || []).map((e) => `${e.AttributeName} (${e.SearchSchemaElementType === "HASH" ? "HASH" : "filter"})`).join(", ") || "–";
  return h("section", { class: "panel", id: "vector-indexes" }, h("h2", {}, `Vector indexes (${list.length})`),
    h("table", { class: "grid" },
      h("thead", {}, h("tr", {}, ["Name", "Status", "Vector attribute", "Dimensions", "Distance", "Search schema", "Projected attributes", "Items", "Size"].map((c) => h("th", {}, c)))),
      h("tbody", {}, list.map((v) => h("tr", {},
        h("td", {}, v.IndexName), h("td", {}, statusBadge(v.IndexStatus)),
        h("td", {}, v.VectorAttribute.AttributeName), h("td", { class: "num" }, num(v.Dimensions)),
        h("td", {}, v.DistanceFunction), h("td", {}, schema(v)), h("td", {}, projectionText(v.Projection)),
        h("td", { class: "num" }, num(v.ItemCount)), h("td", { class: "num" }, bytes(v.IndexSizeBytes)))))));
}

export async function renderTable(view, name) {
  const t = await describe(name);
  const indexes = [
    ...(t.GlobalSecondaryIndexes || []).map((i) => ({ ...i, type: "Global" })),
    ...(t.LocalSecondaryIndexes || []).map((i) => ({ ...i, type: "Local" })),
  ];
  const enc = encodeURIComponent(name);
  view.replaceChildren(
    h("div", { class: "crumbs" }, h("a", { href: "#/tables" }, "Tables"), " › ", name),
    h("div", { class: "page-head" },
      h("h1", {}, name, " ", statusBadge(t.TableStatus)),
      h("div", { class: "actions" },
        h("a", { class: "btn primary", href: `#/items/${enc}` }, "Explore table items"),
        h("a", { class: "btn", href: `#/streams/${enc}` }, "Stream records"),
        h("a", { class: "btn", href: `#/monitor/${enc}` }, "Monitor"))),
    h("section", { class: "panel" }, h("h2", {}, "General information"),
      kv([
        ["Partition key", keyText(t.KeySchema.filter((k) => k.KeyType === "HASH"), t.AttributeDefinitions)],
        ["Sort key", t.KeySchema.some((k) => k.KeyType === "RANGE") ? keyText(t.KeySchema.filter((k) => k.KeyType === "RANGE"), t.AttributeDefinitions) : "–"],
        ["Capacity mode", t.BillingModeSummary?.BillingMode === "PAY_PER_REQUEST" ? "On-demand" : `Provisioned (${t.ProvisionedThroughput.ReadCapacityUnits} RCU, ${t.ProvisionedThroughput.WriteCapacityUnits} WCU)`],
        ["Item count", num(t.ItemCount)],
        ["Table size", bytes(t.TableSizeBytes)],
        ["Average item size", t.ItemCount ? bytes(Math.round(t.TableSizeBytes / t.ItemCount)) : "–"],
        ["Created", t.CreationDateTime ? new Date(t.CreationDateTime * 1000).toISOString().replace("T", " ").slice(0, 19) + " UTC" : "–"],
        ["Deletion protection", t.DeletionProtectionEnabled ? "On" : "Off"],
        ["Amazon Resource Name (ARN)", h("code", {}, t.TableArn)],
      ])),
    h("section", { class: "panel" }, h("h2", {}, `Indexes (${indexes.length})`),
      indexes.length === 0 ? h("p", { class: "muted" }, "No secondary indexes.") :
        h("table", { class: "grid" },
          h("thead", {}, h("tr", {}, ["Name", "Type", "Status", "Partition key", "Sort key", "Projected attributes", "Items", "Size"].map((c) => h("th", {}, c)))),
          h("tbody", {}, indexes.map((i) => h("tr", {},
            h("td", {}, i.IndexName), h("td", {}, i.type), h("td", {}, i.IndexStatus ? statusBadge(i.IndexStatus) : statusBadge("ACTIVE")),
            h("td", {}, keyText(i.KeySchema.filter((k) => k.KeyType === "HASH"), t.AttributeDefinitions)),
            h("td", {}, i.KeySchema.some((k) => k.KeyType === "RANGE") ? keyText(i.KeySchema.filter((k) => k.KeyType === "RANGE"), t.AttributeDefinitions) : "–"),
            h("td", {}, projectionText(i.Projection)),
            h("td", { class: "num" }, num(i.ItemCount)), h("td", { class: "num" }, bytes(i.IndexSizeBytes))))))),
    vectorSection(t),
    h("div", { class: "two" },
      h("section", { class: "panel" }, h("h2", {}, "Time to Live (TTL)"),
        kv([["Status", ttlText(t)], ["TTL attribute", t.ttl.AttributeName]]),
        h("p", { class: "muted" }, "Expired items are deleted by the sweeper on the engine clock; see ", h("a", { href: "#/clock" }, "Clock and TTL"), ".")),
      h("section", { class: "panel" }, h("h2", {}, "DynamoDB stream"),
        kv([["Status", streamText(t)], ["Latest stream ARN", t.LatestStreamArn ? h("code", {}, t.LatestStreamArn) : "–"]]))));
}
