// monitor.js - the access-pattern report (GET /ddbemu/insight) as charts.
// The report holds totals and each partition key's busiest second; the
// console samples it every two seconds while it is open and plots the
// difference between samples, so heat reads as a line over (engine) time
// against DynamoDB's per-partition limits. The numbers are the report's:
// this file only subtracts and draws.

import { control, insight, namespace } from "./api.js";
import { barChart, legend, lineChart } from "./charts.js";
import { cellText, h, num, toast } from "./format.js";

// Heat is drawn over the last WINDOW_MS of engine time: after the clock is
// advanced, older samples would squeeze every point to the chart's edges.
const SAMPLE_MS = 2000, KEEP = 150, SERIES = 6, WINDOW_MS = 3 * 60 * 1000;
const samples = new Map(); // table name -> [{t, reads: Map(label -> RCU), writes: Map(label -> WCU)}]
let timer = null, onSample = null, latest = null;

function partitionLabel(source, k) {
  return (source.index ? `${source.index}: ` : "") + cellText(k.key);
}

function record(report) {
  latest = report;
  for (const t of report.tables) {
    const s = { t: report.now_ms, reads: new Map(), writes: new Map() };
    for (const src of [t.base, ...t.indexes]) {
      for (const k of src.partitions.top_reads)
        s.reads.set(partitionLabel(src, k), { total: k.rcu, peak: k.peak_rcu_per_s, at: k.peak_at_ms });
      for (const k of src.partitions.top_writes)
        s.writes.set(partitionLabel(src, k), { total: k.wcu, peak: k.peak_wcu_per_s, at: k.peak_at_ms });
    }
    const list = samples.get(t.table) || [];
    // The clock went back (POST /ddbemu/clock set_ms) or counting restarted: start over.
    if (list.length && list[list.length - 1].t > s.t) list.length = 0;
    list.push(s);
    if (list.length > KEEP) list.shift();
    samples.set(t.table, list);
  }
}

async function sample() {
  try {
    record(await insight());
    if (onSample) onSample();
  } catch {
    // The server is gone or the control interface is off: try again later.
  }
}

/** Starts the sampler (once); it runs while the page is open. */
export function startSampler() {
  if (timer) return;
  sample();
  timer = setInterval(sample, SAMPLE_MS);
}

/** Forgets what was sampled (a new namespace). */
export function clearSamples() {
  samples.clear();
  latest = null;
}

/** Units per second of each partition key between consecutive samples, for the hottest keys. */
function heatSeries(table, kind) {
  const all = samples.get(table) || [];
  const end = all.length ? all[all.length - 1].t : 0;
  const list = all.filter((x) => x.t >= end - WINDOW_MS);
  const byKey = new Map();
  for (let i = 1; i < list.length; i++) {
    const a = list[i - 1], b = list[i], secs = (b.t - a.t) / 1000;
    if (secs <= 0) continue;
    for (const [label, now] of b[kind]) {
      const prev = a[kind].get(label);
      if (!byKey.has(label)) byKey.set(label, []);
      // The average between the samples, over at least a second (closer
      // samples would make a burst look faster than it was) - or the key's
      // busiest second, the report's own number, when it changed since the
      // last sample (a one-second window that may have begun just before
      // it): a burst inside one second must not be averaged below the limit.
      const average = Math.max(now.total - (prev?.total ?? 0), 0) / Math.max(secs, 1);
      const newPeak = prev ? now.peak !== prev.peak || now.at !== prev.at : now.at >= a.t - 1000;
      byKey.get(label).push({ t: b.t, v: newPeak ? Math.max(average, now.peak) : average });
    }
  }
  return [...byKey.entries()]
    .map(([label, points]) => ({ label, points, max: Math.max(...points.map((p) => p.v)) }))
    .filter((x) => x.max > 0) // a key with no traffic in the window is noise
    .sort((x, y) => y.max - x.max)
    .slice(0, SERIES);
}

function tile(label, value, note) {
  return h("div", { class: "tile" }, h("div", { class: "tile-label" }, label), h("div", { class: "tile-value" }, value), note && h("div", { class: "muted small" }, note));
}

function sourceName(src) {
  return src.index ? `${src.index} (${src.type})` : "Table";
}

function drawTable(t, limits) {
  const sources = [t.base, ...t.indexes];
  const peaks = (kind) => sources.flatMap((src) =>
    (kind === "writes" ? src.partitions.top_writes : src.partitions.top_reads).map((k) => ({
      label: partitionLabel(src, k),
      value: kind === "writes" ? k.peak_wcu_per_s : k.peak_rcu_per_s,
      note: `at ${new Date(k.peak_at_ms).toISOString().slice(11, 19)}`,
    }))).sort((a, b) => b.value - a.value).slice(0, 8);
  const patterns = sources.flatMap((src) => {
    const name = sourceName(src);
    const other = Math.max(src.rcu - src.query.rcu - src.scan.rcu, 0);
    return [
      { label: `${name} · Query`, value: src.query.rcu, note: `${src.query.requests} requests` },
      { label: `${name} · Scan`, value: src.scan.rcu, note: `${src.scan.requests} requests`, color: "#e07941" },
      !src.index && { label: "Table · GetItem and batches", value: other, color: "#8456ce" },
      { label: `${name} · writes`, value: src.wcu, note: "WCU", color: "#037f0c" },
    ].filter((b) => b && b.value > 0);
  });
  const amplification = sources.flatMap((src) => [
    src.query.read_amplification !== null && { label: `${sourceName(src)} · Query`, value: src.query.read_amplification, note: `${num(src.query.items_read)} read / ${num(src.query.items_returned)} returned` },
    src.scan.read_amplification !== null && { label: `${sourceName(src)} · Scan`, value: src.scan.read_amplification, note: `${num(src.scan.items_read)} read / ${num(src.scan.items_returned)} returned`, color: "#e07941" },
    ...src.filters.filter((f) => f.read_amplification !== null).map((f) => ({ label: `${f.operation} filter on ${f.attributes}`, value: f.read_amplification, note: `${f.requests} requests`, color: "#7d8998" })),
  ].filter(Boolean));
  const heat = (kind, limit, unit) => {
    const series = heatSeries(t.table, kind);
    return h("div", { class: "chart-box", id: `heat-${kind}` },
      lineChart({ series, limit, limitLabel: `partition limit ${num(limit)} ${unit}/s`, unit: `${unit}/s` }),
      legend(series.map((s) => s.label)));
  };
  return [
    h("div", { class: "tiles" },
      tile("Read capacity", `${num(t.capacity.rcu)} RCU`, `${num(t.items.returned)} items returned`),
      tile("Write capacity", `${num(t.capacity.wcu)} WCU`, `${num(t.items.written)} items written`),
      tile("On-demand cost", `$${t.cost.on_demand_monthly_usd.toFixed(2)}/month`, "at the observed rate, us-east-1"),
      tile("Findings", String(t.findings.length), t.findings.filter((f) => f.severity === "warning").length + " warnings")),
    t.findings.length > 0 && h("section", { class: "panel" }, h("h2", {}, "Findings"),
      h("ul", { class: "findings" }, t.findings.map((f) => h("li", { class: f.severity }, h("span", { class: `badge ${f.severity}` }, f.severity === "warning" ? "Warning" : "Notice"), " ", f.message)))),
    t.consistency && h("section", { class: "panel", id: "consistency" }, h("h2", {}, "Consistency · --consistency aws"),
      h("p", { class: "muted small" }, "What AWS's consistency model did to your requests (docs/consistency.md): reads answered from before a recent write, GSI reads that missed a change still propagating, and requests that met an ongoing transaction. All stay 0 while the model is off."),
      h("div", { class: "tiles" },
        tile("Stale reads", num(t.consistency.stale_reads), "eventually consistent reads of the table or an LSI"),
        tile("GSI reads behind", num(t.consistency.gsi_stale_reads), "missed a pending change"),
        tile("Transaction conflicts", num(t.consistency.transaction_conflicts), "TransactionConflict(Exception)"))),
    h("section", { class: "panel" }, h("h2", {}, "Partition heat · writes"),
      h("p", { class: "muted small" }, "WCU per second of each partition key over the last three minutes of engine time: its busiest second between two samples (every two seconds), else its average. One partition serves 1,000 WCU per second."),
      heat("writes", limits.partition_wcu_per_s, "WCU")),
    h("section", { class: "panel" }, h("h2", {}, "Partition heat · reads"),
      h("p", { class: "muted small" }, "RCU per second of each partition key; one partition serves 3,000 RCU per second."),
      heat("reads", limits.partition_rcu_per_s, "RCU")),
    h("div", { class: "two" },
      h("section", { class: "panel", id: "peak-writes" }, h("h2", {}, "Busiest second per partition key · writes"),
        barChart({ bars: peaks("writes"), limit: limits.partition_wcu_per_s, limitLabel: "1,000 WCU/s", unit: "WCU/s", width: 560 })),
      h("section", { class: "panel", id: "peak-reads" }, h("h2", {}, "Busiest second per partition key · reads"),
        barChart({ bars: peaks("reads"), limit: limits.partition_rcu_per_s, limitLabel: "3,000 RCU/s", unit: "RCU/s", width: 560 }))),
    h("div", { class: "two" },
      h("section", { class: "panel", id: "capacity-patterns" }, h("h2", {}, "Capacity by access pattern"),
        h("p", { class: "muted small" }, "Read capacity units by table or index and operation; writes include index writes."),
        barChart({ bars: patterns, unit: "CU", width: 560 })),
      h("section", { class: "panel", id: "read-amplification" }, h("h2", {}, "Read amplification"),
        h("p", { class: "muted small" }, "Items read per item returned: 1 is ideal; more means a filter or a Scan discards what it paid for."),
        barChart({ bars: amplification, unit: "×", width: 560, color: "#0972d3" }))),
  ];
}

export async function renderMonitor(view, tableName, isCurrent) {
  startSampler();
  const report = await insight();
  record(report);
  const names = report.tables.map((t) => t.table).sort();
  if (!tableName || !names.includes(tableName)) tableName = names[0];
  const body = h("div", { id: "monitor-body" });
  const draw = () => {
    if (!isCurrent()) {
      onSample = null;
      return;
    }
    const t = latest && latest.tables.find((x) => x.table === tableName);
    body.replaceChildren(...(t ? drawTable(t, latest.limits) : [h("section", { class: "panel empty" }, h("b", {}, "No tables"))]).filter(Boolean));
  };
  view.replaceChildren(
    h("div", { class: "page-head" },
      h("h1", {}, "Monitor · access patterns"),
      h("div", { class: "actions" },
        names.length > 0 && h("select", { id: "monitor-table", "aria-label": "Table", onchange: (e) => (location.hash = `#/monitor/${encodeURIComponent(e.target.value)}`) },
          names.map((n) => h("option", { value: n, selected: n === tableName }, n))),
        h("button", { class: "btn", onclick: async () => {
          try {
            const ns = namespace();
            await control("insight/reset", { access_key: ns.accessKey, region: ns.region, table: tableName });
            samples.delete(tableName);
            toast("Counting starts again");
            await sample();
          } catch (e) { toast(e.message, "error"); }
        } }, "Reset counters"))),
    h("p", { class: "muted" }, "What your requests did since the table was created (or the counters were reset), as ", h("code", {}, "GET /ddbemu/insight"), " reports it. See docs/validating-a-design.md for every number."),
    body);
  onSample = draw;
  draw();
}
