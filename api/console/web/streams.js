// streams.js - a live tail of a table's stream: DescribeStream for the
// shards, one iterator per shard (TRIM_HORIZON or LATEST), GetRecords every
// second, newest records on top. New shards (rollover) are picked up by
// describing the stream again; a closed shard's iterator ends by itself.

import { ddb, listTableNames, streams } from "./api.js";
import { cellText, h, plainText, toast } from "./format.js";

const MAX_SHOWN = 500;
let tail = null; // the running tail, stopped when the view changes

export function stopTail() {
  if (tail) tail.stopped = true;
  tail = null;
}

function keyText(keys) {
  return Object.entries(keys || {}).map(([k, v]) => `${k}: ${cellText(v)}`).join(" · ");
}

function recordRow(r) {
  const d = r.dynamodb;
  const ttl = r.userIdentity && r.userIdentity.PrincipalId === "dynamodb.amazonaws.com";
  const details = h("div", { class: "images" },
    d.OldImage && h("div", {}, h("h4", {}, "Old image"), h("pre", { class: "json" }, plainText(d.OldImage))),
    d.NewImage && h("div", {}, h("h4", {}, "New image"), h("pre", { class: "json" }, plainText(d.NewImage))));
  const row = h("li", { class: `record ${r.eventName.toLowerCase()}`, "data-event": r.eventName },
    h("div", { class: "record-head", onclick: () => row.classList.toggle("open") },
      h("span", { class: `event ${r.eventName.toLowerCase()}` }, r.eventName),
      h("span", { class: "keys" }, keyText(d.Keys)),
      ttl && h("span", { class: "badge" }, "TTL delete"),
      h("span", { class: "muted small grow-right" },
        `${new Date(d.ApproximateCreationDateTime * 1000).toISOString().replace("T", " ").slice(0, 19)} · seq ${d.SequenceNumber} · ${d.SizeBytes} bytes`)),
    details);
  return row;
}

// One shard's reader: its iterator (null once the shard is read to its end)
// and the last sequence number seen, to take up again after the iterator
// expires (15 minutes of engine time, e.g. when the clock is advanced).
async function nextRecords(t, shard) {
  try {
    return await streams("GetRecords", { ShardIterator: shard.iterator, Limit: 1000 });
  } catch (e) {
    if (e.type !== "ExpiredIteratorException") throw e;
    const req = { StreamArn: t.arn, ShardId: shard.id, ShardIteratorType: "AFTER_SEQUENCE_NUMBER", SequenceNumber: shard.last };
    if (!shard.last) (req.ShardIteratorType = shard.type), delete req.SequenceNumber;
    shard.iterator = (await streams("GetShardIterator", req)).ShardIterator;
    return streams("GetRecords", { ShardIterator: shard.iterator, Limit: 1000 });
  }
}

async function run(t, list, status) {
  const shards = new Map(); // shardId -> {id, iterator, last, type}
  let lastDescribe = 0;
  while (!t.stopped) {
    try {
      if (Date.now() - lastDescribe > 5000) {
        lastDescribe = Date.now();
        const { StreamDescription: sd } = await streams("DescribeStream", { StreamArn: t.arn });
        for (const shard of sd.Shards) {
          if (shards.has(shard.ShardId)) continue;
          // A shard that appears after the tail started is read from its start.
          const type = t.first ? t.from : "TRIM_HORIZON";
          const { ShardIterator } = await streams("GetShardIterator", { StreamArn: t.arn, ShardId: shard.ShardId, ShardIteratorType: type });
          shards.set(shard.ShardId, { id: shard.ShardId, iterator: ShardIterator, last: null, type });
        }
        t.first = false;
      }
      let got = 0;
      for (const shard of shards.values()) {
        if (!shard.iterator) continue;
        const out = await nextRecords(t, shard);
        if (t.stopped) return; // restarted meanwhile: the new tail owns the list
        shard.iterator = out.NextShardIterator || null;
        for (const r of out.Records) {
          list.prepend(recordRow(r));
          shard.last = r.dynamodb.SequenceNumber;
          got++;
        }
      }
      while (list.children.length > MAX_SHOWN) list.lastChild.remove();
      t.count += got;
      status.textContent = `Tailing · ${t.count} record${t.count === 1 ? "" : "s"} received · ${shards.size} shard${shards.size === 1 ? "" : "s"}`;
    } catch (e) {
      if (t.stopped) return;
      status.textContent = `Stopped: ${e.message}`;
      toast(e.message, "error");
      return;
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
}

export async function renderStreams(view, tableName) {
  stopTail();
  const names = await listTableNames();
  if (!tableName) tableName = names[0];
  const head = h("div", { class: "page-head" },
    h("h1", {}, "Streams"),
    names.length > 0 && h("select", { id: "stream-table", "aria-label": "Table", onchange: (e) => (location.hash = `#/streams/${encodeURIComponent(e.target.value)}`) },
      names.map((n) => h("option", { value: n, selected: n === tableName }, n))));
  if (!tableName) {
    view.replaceChildren(head, h("section", { class: "panel empty" }, h("b", {}, "No tables")));
    return;
  }
  const { Table } = await ddb("DescribeTable", { TableName: tableName });
  const spec = Table.StreamSpecification;
  if (!Table.LatestStreamArn || !spec || !spec.StreamEnabled) {
    view.replaceChildren(head, h("section", { class: "panel empty" }, h("b", {}, "Stream off"),
      h("p", {}, `${tableName} has no DynamoDB stream. Turn one on with UpdateTable (StreamSpecification), e.g. aws dynamodb update-table --table-name ${tableName} --stream-specification StreamEnabled=true,StreamViewType=NEW_AND_OLD_IMAGES`)));
    return;
  }
  const list = h("ul", { class: "records", id: "records" });
  const status = h("span", { class: "muted", id: "tail-status" }, "Starting…");
  const from = h("select", { id: "tail-from" },
    h("option", { value: "TRIM_HORIZON" }, "From the oldest record (trim horizon)"),
    h("option", { value: "LATEST" }, "New records only (latest)"));
  const start = () => {
    stopTail();
    list.replaceChildren();
    tail = { arn: Table.LatestStreamArn, from: from.value, first: true, stopped: false, count: 0 };
    run(tail, list, status);
  };
  from.addEventListener("change", start);
  view.replaceChildren(head,
    h("section", { class: "panel" },
      h("div", { class: "panel-head" },
        h("h2", {}, `Stream records · ${tableName}`),
        h("div", { class: "actions" }, from, h("button", { class: "btn", onclick: start }, "Restart"), h("button", { class: "btn", onclick: () => { stopTail(); status.textContent = "Paused"; } }, "Pause"))),
      h("p", { class: "muted small" }, `View type ${spec.StreamViewType} · `, h("code", {}, Table.LatestStreamArn)),
      h("p", {}, status),
      list));
  start();
}
