// format.js - small tools every view shares: building DOM nodes, the toast,
// number and size formatting, and DynamoDB JSON <-> plain JSON.

/** h("div", {class: "x", onclick: fn}, child, ...) - text children are escaped by the DOM. */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "html") el.innerHTML = v; // only for trusted, built-in markup
    else el.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

let toastTimer;
/** A short message at the bottom of the page; kind "error" stays longer. */
export function toast(message, kind = "ok") {
  const el = document.getElementById("toast");
  el.textContent = message;
  el.className = `toast ${kind}`;
  el.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => (el.hidden = true), kind === "error" ? 8000 : 3000);
}

export function bytes(n) {
  if (n === undefined || n === null) return "–";
  if (n < 1024) return `${n} bytes`;
  const units = ["KB", "MB", "GB", "TB"];
  let v = n / 1024, i = 0;
  while (v >= 1024 && i < units.length - 1) (v /= 1024), i++;
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[i]}`;
}

export function num(n, digits = 1) {
  if (n === undefined || n === null) return "–";
  if (Number.isInteger(n)) return n.toLocaleString("en-US");
  return n.toLocaleString("en-US", { maximumFractionDigits: digits });
}

export function isoTime(ms) {
  return new Date(ms).toISOString().replace("T", " ").replace(/\.\d+Z$/, " UTC");
}

/** "pk (S), sk (N)" from a KeySchema and the AttributeDefinitions. */
export function keyText(keySchema, defs) {
  const type = (name) => (defs || []).find((d) => d.AttributeName === name)?.AttributeType;
  return keySchema.map((k) => `${k.AttributeName} (${type(k.AttributeName) || "?"})`).join(", ");
}

export function keyNames(keySchema) {
  return {
    pk: keySchema.find((k) => k.KeyType === "HASH")?.AttributeName,
    sk: keySchema.find((k) => k.KeyType === "RANGE")?.AttributeName,
  };
}

// ---- DynamoDB JSON and plain JSON ----

/** A plain-JSON text of an AttributeValue map. Numbers keep their exact digits. */
export function plainText(item) {
  return JSON.stringify(unmarshalMap(item), null, 2).replace(/"\\u0000N:([^"]*)"/g, "$1");
}

function unmarshalMap(m) {
  const out = {};
  for (const [k, v] of Object.entries(m)) out[k] = unmarshal(v);
  return out;
}

// Numbers travel as a marked string so that plainText can print their
// digits unchanged: a 38-digit number does not survive a JavaScript double.
function unmarshal(v) {
  const [t, x] = Object.entries(v)[0];
  switch (t) {
    case "S": return x;
    case "N": return `\u0000N:${x}`;
    case "B": return x;
    case "BOOL": return x;
    case "NULL": return null;
    case "SS": return x;
    case "NS": return x.map((n) => `\u0000N:${n}`);
    case "BS": return x;
    case "L": return x.map(unmarshal);
    case "M": return unmarshalMap(x);
  }
  return v;
}

/** An AttributeValue map from a plain JSON object, as the document client marshals. */
export function marshalMap(obj) {
  if (obj === null || typeof obj !== "object" || Array.isArray(obj))
    throw new Error("an item is a JSON object");
  const out = {};
  for (const [k, v] of Object.entries(obj)) if (v !== undefined) out[k] = marshal(v);
  return out;
}

function marshal(v) {
  if (v === null) return { NULL: true };
  if (typeof v === "string") return { S: v };
  if (typeof v === "number") return { N: String(v) };
  if (typeof v === "boolean") return { BOOL: v };
  if (Array.isArray(v)) return { L: v.map(marshal) };
  return { M: marshalMap(v) };
}

/** A short text of one attribute value for a table cell. */
export function cellText(v) {
  if (!v) return "";
  const [t, x] = Object.entries(v)[0];
  if (t === "S" || t === "N" || t === "B") return x;
  if (t === "BOOL") return String(x);
  if (t === "NULL") return "null";
  if (t === "SS" || t === "NS" || t === "BS") return `{${x.join(", ")}}`;
  return JSON.stringify(unmarshal(v)).replace(/"\\u0000N:([^"]*)"/g, "$1");
}

/** The AttributeValue of text typed for a key attribute of type t (S, N or B). */
export function keyValue(t, text) {
  return { [t || "S"]: text };
}
