// items.js - Explore items: Scan or Query a table or one of its indexes
// (partition key and a sort-key condition), page with LastEvaluatedKey,
// search a vector index with SearchVectors (vector, TopK and the HASH value
// its SearchSchema requires), show items as a grid, DynamoDB JSON or plain
// JSON, and create, edit and delete items with PutItem and DeleteItem - the
// ordinary API, so conditions, indexes, TTL and stream records all apply.

import { ddb, listTableNames } from "./api.js";
import { cellText, h, keyNames, keyValue, marshalMap, plainText, toast } from "./format.js";
import { describe } from "./tables.js";

const SK_OPS = [
  ["=", "Equal to"], ["<", "Less than"], ["<=", "Less than or equal to"], [">", "Greater than"],
  [">=", "Greater than or equal to"], ["between", "Between"], ["begins_with", "Begins with"],
];

// What the view remembers between renders of the same table.
let ui = { table: null, index: "", mode: "query", pk: "", skOp: "=", sk: "", sk2: "", limit: 25, format: "grid",
  vindex: "", vector: "", topK: 10, hash: "" };

/** The vector index the search form names (the first one by default). */
function vectorIndexOf(t) {
  const list = t.VectorIndexes || [];
  return list.find((v) => v.IndexName === ui.vindex) || list[0];
}

/** The search vector typed as "0.1, 0.2" or "[0.1, 0.2]", as SearchVector's numbers. */
function parseVector(text) {
  const parts = text.replace(/^\s*\[|\]\s*$/g, "").split(/[\s,]+/).filter((s) => s !== "");
  if (parts.length === 0) throw new Error("Enter the search vector: numbers separated by commas.");
  for (const p of parts) if (!Number.isFinite(Number(p))) throw new Error(`Not a number in the search vector: ${p}`);
  return parts.map((p) => ({ N: p }));
}

/** The SearchVectors request for the form's state. */
function searchRequest(t) {
  const v = vectorIndexOf(t);
  const req = { TableName: t.TableName, IndexName: v.IndexName, SearchVector: parseVector(ui.vector), TopK: Number(ui.topK) };
  const hash = (v.SearchSchema || []).find((e) => e.SearchSchemaElementType === "HASH");
  if (hash) {
    req.SearchConditionExpression = "#h = :h";
    req.ExpressionAttributeNames = { "#h": hash.AttributeName };
    req.ExpressionAttributeValues = { ":h": keyValue(attrType(t, hash.AttributeName), ui.hash) };
  }
  return req;
}

function attrType(t, name) {
  return t.AttributeDefinitions.find((d) => d.AttributeName === name)?.AttributeType || "S";
}

function keySchemaOf(t, index) {
  if (!index) return t.KeySchema;
  const all = [...(t.GlobalSecondaryIndexes || []), ...(t.LocalSecondaryIndexes || [])];
  return all.find((i) => i.IndexName === index)?.KeySchema || t.KeySchema;
}

/** The Query or Scan request for the form's state. */
function request(t, startKey) {
  const req = { TableName: t.TableName, Limit: ui.limit };
  if (ui.index) req.IndexName = ui.index;
  if (startKey) req.ExclusiveStartKey = startKey;
  if (ui.mode === "scan") return ["Scan", req];
  const { pk, sk } = keyNames(keySchemaOf(t, ui.index));
  req.ExpressionAttributeNames = { "#pk": pk };
  req.ExpressionAttributeValues = { ":pk": keyValue(attrType(t, pk), ui.pk) };
  req.KeyConditionExpression = "#pk = :pk";
  if (sk && ui.sk !== "") {
    req.ExpressionAttributeNames["#sk"] = sk;
    req.ExpressionAttributeValues[":sk"] = keyValue(attrType(t, sk), ui.sk);
    if (ui.skOp === "between") {
      req.ExpressionAttributeValues[":sk2"] = keyValue(attrType(t, sk), ui.sk2);
      req.KeyConditionExpression += " AND #sk BETWEEN :sk AND :sk2";
    } else if (ui.skOp === "begins_with") {
      req.KeyConditionExpression += " AND begins_with(#sk, :sk)";
    } else {
      req.KeyConditionExpression += ` AND #sk ${ui.skOp} :sk`;
    }
  }
  return ["Query", req];
}

/** Columns: the table's key attributes first, then the others in first-seen order. */
function columns(t, items) {
  const cols = t.KeySchema.map((k) => k.AttributeName);
  for (const it of items) for (const k of Object.keys(it)) if (!cols.includes(k)) cols.push(k);
  return cols;
}

function keyOf(t, item) {
  const key = {};
  for (const k of t.KeySchema) key[k.AttributeName] = item[k.AttributeName];
  return key;
}

export async function renderItems(view, tableName) {
  const names = await listTableNames();
  if (!tableName) tableName = names.includes(ui.table) ? ui.table : names[0];
  if (!tableName) {
    view.replaceChildren(h("h1", {}, "Explore items"), h("section", { class: "panel empty" }, h("b", {}, "No tables"), h("p", {}, "This namespace has no tables yet.")));
    return;
  }
  const t = await describe(tableName);
  if (ui.table !== tableName) ui = { ...ui, table: tableName, index: "", pk: "", sk: "", sk2: "", vindex: "", vector: "", hash: "" };
  const pages = [undefined]; // ExclusiveStartKey of each page seen
  let pageNo = 0, lastKey = null, items = [], loaded = false, scores = null;

  const results = h("section", { class: "panel", id: "results" });
  const form = h("form", { class: "query-form", id: "query-form" });

  function field(label, input) {
    return h("label", { class: "field" }, h("span", {}, label), input);
  }

  function drawForm() {
    const { pk, sk } = keyNames(keySchemaOf(t, ui.index));
    const indexes = [...(t.GlobalSecondaryIndexes || []), ...(t.LocalSecondaryIndexes || [])].map((i) => i.IndexName);
    const bind = (key) => (e) => { ui[key] = e.target.value; if (key === "index" || key === "mode" || key === "skOp" || key === "vindex") drawForm(); };
    const modes = (t.VectorIndexes || []).length ? ["scan", "query", "search"] : ["scan", "query"];
    const label = { scan: "Scan", query: "Query", search: "Vector search" };
    if (ui.mode === "search" && !modes.includes("search")) ui.mode = "query";
    const seg = h("div", { class: "seg" },
      modes.map((m) => h("button", { type: "button", class: ui.mode === m ? "on" : "", "data-mode": m, onclick: () => { ui.mode = m; drawForm(); } }, label[m])));
    if (ui.mode === "search") {
      const v = vectorIndexOf(t);
      const hash = (v.SearchSchema || []).find((e) => e.SearchSchemaElementType === "HASH");
      form.replaceChildren(seg,
        h("div", { class: "row" },
          field("Vector index", h("select", { id: "q-vindex", onchange: bind("vindex") },
            t.VectorIndexes.map((x) => h("option", { value: x.IndexName, selected: x.IndexName === v.IndexName }, `${x.IndexName} · ${x.Dimensions} dimensions · ${x.DistanceFunction}`)))),
          field("TopK (1-100)", h("input", { id: "q-topk", type: "number", min: 1, max: 100, value: ui.topK, oninput: bind("topK") }))),
        h("div", { class: "row" },
          field(`Search vector (${v.Dimensions} numbers, comma-separated)`, h("input", { id: "q-vector", value: ui.vector, required: true, oninput: bind("vector"), placeholder: "0.12, -0.5, 0.33" })),
          hash && field(`${hash.AttributeName} (HASH)`, h("input", { id: "q-hash", value: ui.hash, required: true, oninput: bind("hash") }))),
        h("div", { class: "row" },
          h("button", { class: "btn primary", type: "submit", id: "q-run" }, "Search"),
          h("button", { class: "btn", type: "button", onclick: () => { ui.vector = ui.hash = ""; drawForm(); } }, "Reset")));
      return;
    }
    form.replaceChildren(
      seg,
      h("div", { class: "row" },
        field("Table or index", h("select", { id: "q-index", onchange: bind("index") },
          h("option", { value: "", selected: !ui.index }, `Table - ${t.TableName}`),
          indexes.map((n) => h("option", { value: n, selected: ui.index === n }, `Index - ${n}`)))),
        field("Items per page", h("select", { id: "q-limit", onchange: (e) => (ui.limit = Number(e.target.value)) },
          [10, 25, 50, 100, 300].map((n) => h("option", { value: n, selected: ui.limit === n }, n))))),
      ui.mode === "query" && h("div", { class: "row" },
        field(`${pk} (Partition key)`, h("input", { id: "q-pk", value: ui.pk, required: true, oninput: bind("pk"), placeholder: `Enter ${attrType(t, pk) === "N" ? "number" : "value"}` })),
        sk && field(`${sk} (Sort key)`, h("select", { id: "q-skop", onchange: bind("skOp") }, SK_OPS.map(([v, l]) => h("option", { value: v, selected: ui.skOp === v }, l)))),
        sk && field("Value", h("input", { id: "q-sk", value: ui.sk, oninput: bind("sk"), placeholder: "optional" })),
        sk && ui.skOp === "between" && field("And", h("input", { id: "q-sk2", value: ui.sk2, oninput: bind("sk2") }))),
      h("div", { class: "row" },
        h("button", { class: "btn primary", type: "submit", id: "q-run" }, "Run"),
        h("button", { class: "btn", type: "button", onclick: () => { ui.pk = ui.sk = ui.sk2 = ""; drawForm(); } }, "Reset")));
  }

  /** A SearchVectors call: its results, best first, with their scores. */
  async function search() {
    const t0 = performance.now();
    const out = await ddb("SearchVectors", { ...searchRequest(t), ReturnConsumedCapacity: "TOTAL" });
    items = out.SearchResults.map((r) => r.Item);
    scores = out.SearchResults.map((r) => r.Score);
    loaded = true;
    lastKey = null;
    drawResults("SearchVectors", out, performance.now() - t0);
  }

  async function load(startKey) {
    if (ui.mode === "search") return search();
    scores = null;
    const [op, req] = request(t, startKey);
    const t0 = performance.now();
    const out = await ddb(op, { ...req, ReturnConsumedCapacity: "TOTAL" });
    items = out.Items;
    loaded = true;
    lastKey = out.LastEvaluatedKey || null;
    drawResults(op, out, performance.now() - t0);
  }

  function drawResults(op, out, ms) {
    const cols = columns(t, items);
    const fmt = (f, label) => h("button", { type: "button", class: ui.format === f ? "on" : "", "data-format": f, onclick: () => { ui.format = f; drawResults(op, out, ms); } }, label);
    let body;
    if (items.length === 0) body = h("div", { class: "empty" }, h("b", {}, "No items"), h("p", {}, `The ${op} returned no items on this page.`));
    else if (ui.format === "grid")
      body = h("div", { class: "scroll" }, h("table", { class: "grid items", id: "items" },
        h("thead", {}, h("tr", {}, h("th", {}), scores && h("th", {}, "Score"), cols.map((c) => h("th", {}, c)))),
        h("tbody", {}, items.map((it, i) => h("tr", { class: "item-row" },
          h("td", {}, h("button", { type: "button", class: "link", title: "Edit item", onclick: () => (scores ? editStored(it) : edit(it)) }, "Edit")),
          scores && h("td", { class: "num score" }, String(scores[i])),
          cols.map((c) => h("td", { class: it[c] && "N" in it[c] ? "num" : "" }, cellText(it[c]))))))));
    else body = h("pre", { class: "json", id: "items-json" }, items.map((it) => (ui.format === "ddb" ? JSON.stringify(it, null, 2) : plainText(it))).join("\n"));
    results.replaceChildren(
      h("div", { class: "panel-head" },
        h("h2", {}, `Items returned (${items.length})`),
        h("div", { class: "actions" },
          h("div", { class: "seg" }, fmt("grid", "Table"), fmt("ddb", "DynamoDB JSON"), fmt("plain", "JSON")),
          h("button", { class: "btn", type: "button", id: "create-item", onclick: () => edit(null) }, "Create item"))),
      h("p", { class: "muted small", id: "results-meta" }, op === "SearchVectors"
        ? `SearchVectors · ${items.length} nearest · ${out.ConsumedCapacity ? out.ConsumedCapacity.VectorSearchRequestBytes + " vector search bytes · " : ""}${ms.toFixed(0)} ms`
        : `${op} · scanned ${out.ScannedCount} · ${out.ConsumedCapacity ? out.ConsumedCapacity.CapacityUnits + " RCU consumed · " : ""}${ms.toFixed(0)} ms`),
      body,
      h("div", { class: "pager" },
        h("button", { class: "btn", type: "button", disabled: pageNo === 0, onclick: () => { pageNo--; load(pages[pageNo]).catch(fail); } }, "‹ Previous"),
        h("span", { id: "page-no" }, `Page ${pageNo + 1}`),
        h("button", { class: "btn", type: "button", id: "next-page", disabled: !lastKey, onclick: () => { pageNo++; pages[pageNo] = lastKey; load(lastKey).catch(fail); } }, "Next ›")));
  }

  function fail(e) {
    toast(e.message, "error");
  }

  // A search result holds only what the vector index projects: the editor
  // opens the whole item, read again from the table.
  async function editStored(it) {
    try {
      const { Item } = await ddb("GetItem", { TableName: t.TableName, Key: keyOf(t, it), ConsistentRead: true });
      if (Item) edit(Item);
      else toast("The item is no longer in the table", "error");
    } catch (e) {
      fail(e);
    }
  }

  // The editor: a dialog over the page; its text follows the chosen format.
  function edit(item) {
    const isNew = !item;
    let format = ui.format === "plain" ? "plain" : "ddb";
    const template = item || Object.fromEntries(t.KeySchema.map((k) => [k.AttributeName, keyValue(attrType(t, k.AttributeName), "")]));
    const text = h("textarea", { id: "item-text", spellcheck: "false", rows: 18 });
    const errorBox = h("p", { class: "error-text", id: "item-error" });
    const show = (it) => (text.value = format === "ddb" ? JSON.stringify(it, null, 2) : plainText(it));
    const parse = () => {
      const v = JSON.parse(text.value);
      return format === "ddb" ? v : marshalMap(v);
    };
    const switchTo = (f) => {
      try { const it = parse(); format = f; show(it); drawFormat(); } catch (e) { errorBox.textContent = e.message; }
    };
    const seg = h("div", { class: "seg" });
    const drawFormat = () => seg.replaceChildren(
      h("button", { type: "button", class: format === "ddb" ? "on" : "", onclick: () => switchTo("ddb") }, "DynamoDB JSON"),
      h("button", { type: "button", class: format === "plain" ? "on" : "", onclick: () => switchTo("plain") }, "JSON"));
    drawFormat();
    show(template);
    const dialog = h("dialog", { class: "editor", id: "item-editor" },
      h("form", { method: "dialog" },
        h("div", { class: "panel-head" }, h("h2", {}, isNew ? "Create item" : "Edit item"), seg),
        h("p", { class: "muted small" }, format === "plain" || ui.format === "plain"
          ? "Plain JSON is marshalled as the document client does: strings S, numbers N, arrays L, objects M."
          : "Attribute values in DynamoDB JSON, e.g. {\"S\": \"text\"}, {\"N\": \"42\"}."),
        text, errorBox,
        h("div", { class: "row end" },
          !isNew && h("button", { type: "button", class: "btn danger", id: "item-delete", onclick: () => save("delete") }, "Delete item"),
          h("span", { class: "grow" }),
          h("button", { type: "button", class: "btn", onclick: () => dialog.close() }, "Cancel"),
          h("button", { type: "button", class: "btn primary", id: "item-save", onclick: () => save("put") }, isNew ? "Create item" : "Save"))));
    async function save(what) {
      try {
        if (what === "delete") {
          if (!confirm("Delete this item?")) return;
          await ddb("DeleteItem", { TableName: t.TableName, Key: keyOf(t, item) });
        } else {
          const it = parse();
          const req = { TableName: t.TableName, Item: it };
          // A new item must not replace one with the same key by accident.
          if (isNew) {
            req.ConditionExpression = "attribute_not_exists(#k)";
            req.ExpressionAttributeNames = { "#k": t.KeySchema[0].AttributeName };
          }
          await ddb("PutItem", req);
          // A changed key made a new item: the old one goes once the new one is written.
          if (!isNew && JSON.stringify(keyOf(t, it)) !== JSON.stringify(keyOf(t, item)))
            await ddb("DeleteItem", { TableName: t.TableName, Key: keyOf(t, item) });
        }
        dialog.close();
        toast(what === "delete" ? "Item deleted" : isNew ? "Item created" : "Item saved");
        if (loaded) await load(pages[pageNo]); // the page shown, with the change
      } catch (e) {
        errorBox.textContent = e.message;
      }
    }
    dialog.addEventListener("close", () => dialog.remove());
    document.body.append(dialog);
    dialog.showModal();
  }

  form.addEventListener("submit", (e) => {
    e.preventDefault();
    pageNo = 0;
    pages.length = 1;
    load(undefined).catch(fail);
  });
  drawForm();
  view.replaceChildren(
    h("div", { class: "page-head" },
      h("h1", {}, "Explore items"),
      h("select", { id: "items-table", "aria-label": "Table", onchange: (e) => (location.hash = `#/items/${encodeURIComponent(e.target.value)}`) },
        names.map((n) => h("option", { value: n, selected: n === tableName }, n)))),
    h("section", { class: "panel" }, h("h2", {}, `${(t.VectorIndexes || []).length ? "Scan, query or search" : "Scan or query"} items · ${tableName}`), form),
    results);
  if (ui.mode === "scan" || (ui.mode === "query" && ui.pk)) await load(undefined);
  else
    results.replaceChildren(h("div", { class: "empty" },
      h("p", {}, "Enter a partition key value and choose Run, or Scan the table."),
      h("button", { class: "btn", type: "button", id: "create-item", onclick: () => edit(null) }, "Create item")));
}
