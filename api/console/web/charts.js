// charts.js - the Monitor view's charts, drawn as SVG by hand: a line chart
// of series over time with a limit line, and horizontal bars against a
// limit. No library: a few shapes read better than a framework's defaults.

const NS = "http://www.w3.org/2000/svg";
export const PALETTE = ["#0972d3", "#e07941", "#7d8998", "#037f0c", "#8456ce", "#c33d69", "#00a1c9", "#962249"];

function s(tag, attrs, text) {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) el.setAttribute(k, v);
  if (text !== undefined) el.textContent = text;
  return el;
}

function niceMax(v) {
  if (v <= 0) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 2.5, 5, 10]) if (v <= m * p) return m * p;
  return 10 * p;
}

/**
 * Lines of series [{label, points: [{t, v}]}] over time, with a dashed
 * limit line. The y axis always shows the limit, so "how close" reads at a
 * glance. Returns an <svg>.
 */
export function lineChart({ series, limit, limitLabel, unit, width = 1000, height = 250 }) {
  const pad = { l: 56, r: 16, t: 26, b: 28 };
  const svg = s("svg", { viewBox: `0 0 ${width} ${height}`, class: "chart", role: "img" });
  const all = series.flatMap((x) => x.points);
  // Times are the engine clock's (the report's now_ms), not the browser's.
  const tMin = all.length ? Math.min(...all.map((p) => p.t)) : 0;
  const tMax = Math.max(...all.map((p) => p.t), tMin + 1000);
  const vMax = niceMax(Math.max(limit * 1.15, ...all.map((p) => p.v)));
  const x = (t) => pad.l + ((t - tMin) / (tMax - tMin)) * (width - pad.l - pad.r);
  const y = (v) => height - pad.b - (v / vMax) * (height - pad.t - pad.b);

  for (let i = 0; i <= 4; i++) {
    const v = (vMax / 4) * i;
    svg.append(s("line", { x1: pad.l, x2: width - pad.r, y1: y(v), y2: y(v), class: "grid" }));
    svg.append(s("text", { x: pad.l - 6, y: y(v) + 4, class: "axis", "text-anchor": "end" }, Math.round(v).toLocaleString("en-US")));
  }
  svg.append(s("text", { x: pad.l - 6, y: 12, class: "axis", "text-anchor": "end" }, unit));
  if (!all.length)
    svg.append(s("text", { x: width / 2, y: y(limit / 2), class: "axis", "text-anchor": "middle" }, "Waiting for traffic…"));
  else [["start", tMin], ["middle", (tMin + tMax) / 2], ["end", tMax]].forEach(([anchor, t]) =>
    svg.append(s("text", { x: x(t), y: height - 8, class: "axis", "text-anchor": anchor },
      new Date(t).toISOString().slice(11, 19))));
  svg.append(s("line", { x1: pad.l, x2: width - pad.r, y1: y(limit), y2: y(limit), class: "limit" }));
  svg.append(s("text", { x: width - pad.r, y: y(limit) - 5, class: "limit-label", "text-anchor": "end" }, limitLabel));

  series.forEach((ser, i) => {
    const color = PALETTE[i % PALETTE.length];
    const d = ser.points.map((p, j) => `${j ? "L" : "M"}${x(p.t).toFixed(1)},${y(p.v).toFixed(1)}`).join(" ");
    if (ser.points.length > 1) svg.append(s("path", { d, class: "series", stroke: color }));
    for (const p of ser.points) {
      const over = p.v > limit;
      const dot = s("circle", { cx: x(p.t), cy: y(p.v), r: over ? 4 : 2.5, fill: over ? "#d91515" : color, class: over ? "over-limit" : "" });
      dot.append(s("title", {}, `${ser.label}: ${p.v.toFixed(1)} ${unit} at ${new Date(p.t).toISOString()}`));
      svg.append(dot);
    }
  });
  return svg;
}

/**
 * Horizontal bars [{label, value, note}] against a limit (a dashed line;
 * a bar past it is drawn red and has class "over-limit"). Without a limit
 * the longest bar spans the width. Returns an <svg>.
 */
export function barChart({ bars, limit, limitLabel, unit, width = 720, color = PALETTE[0] }) {
  const rowH = 26, labelW = 190, pad = { t: limit ? 18 : 6, r: 180, b: 6 };
  const height = pad.t + pad.b + Math.max(bars.length, 1) * rowH;
  const svg = s("svg", { viewBox: `0 0 ${width} ${height}`, class: "chart bars", role: "img" });
  const vMax = Math.max(limit ? limit * 1.15 : 0, ...bars.map((b) => b.value), 1e-9);
  const x = (v) => labelW + (v / vMax) * (width - labelW - pad.r);

  if (!bars.length)
    svg.append(s("text", { x: labelW, y: pad.t + 17, class: "axis" }, "Nothing measured yet"));
  bars.forEach((b, i) => {
    const top = pad.t + i * rowH;
    const over = limit && b.value > limit;
    const g = s("g", { class: over ? "bar over-limit" : "bar", "data-label": b.label });
    const label = b.label.length > 30 ? b.label.slice(0, 29) + "…" : b.label;
    g.append(s("text", { x: labelW - 8, y: top + 17, class: "bar-label", "text-anchor": "end" }, label));
    g.append(s("rect", { x: labelW, y: top + 5, width: Math.max(x(b.value) - labelW, 1), height: rowH - 10, rx: 2,
      fill: over ? "#d91515" : b.color || color }));
    g.append(s("text", { x: x(b.value) + 6, y: top + 17, class: "bar-value" },
      `${b.value.toLocaleString("en-US", { maximumFractionDigits: 1 })}${unit ? " " + unit : ""}${b.note ? " · " + b.note : ""}`));
    g.append(s("title", {}, `${b.label}: ${b.value} ${unit || ""}`));
    svg.append(g);
  });
  if (limit) {
    svg.append(s("line", { x1: x(limit), x2: x(limit), y1: pad.t - 4, y2: height - pad.b, class: "limit" }));
    svg.append(s("text", { x: x(limit), y: pad.t - 7, class: "limit-label", "text-anchor": "middle" }, limitLabel));
  }
  return svg;
}

/** A legend row for line-chart series. */
export function legend(labels) {
  const div = document.createElement("div");
  div.className = "legend";
  labels.forEach((l, i) => {
    const span = document.createElement("span");
    span.innerHTML = `<i style="background:${PALETTE[i % PALETTE.length]}"></i>`;
    span.append(l);
    div.append(span);
  });
  return div;
}
