// app.js - the console's frame: the namespace (access key + region, from the
// address or the last choice), the list of namespaces that have tables (from
// the access-pattern report, which names each table's namespace), and the
// routes: #/tables[/<name>], #/items[/<name>], #/streams[/<name>],
// #/monitor[/<name>], #/clock.

import { control, namespace, setNamespace, setShared } from "./api.js";
import { renderClock, startClock } from "./clock.js";
import { toast } from "./format.js";
import { renderItems } from "./items.js";
import { clearSamples, renderMonitor, startSampler } from "./monitor.js";
import { renderStreams, stopTail } from "./streams.js";
import { renderTable, renderTables } from "./tables.js";

const SHARED = "shared-local-instance"; // dispatch.h's API_SHARED_NAMESPACE
const view = document.getElementById("view");
let generation = 0; // which render is current, so a slow one never draws over a newer view

function chooseNamespace() {
  const q = new URLSearchParams(location.search);
  setNamespace(q.get("access_key") || localStorage.getItem("ddbemu.accessKey") || "local",
    q.get("region") || localStorage.getItem("ddbemu.region") || "us-east-1");
  const ns = namespace();
  document.getElementById("ns-key").value = ns.accessKey;
  document.getElementById("ns-region").value = ns.region;
}

async function listNamespaces() {
  const select = document.getElementById("ns-known");
  try {
    const report = await control("insight"); // every namespace's tables
    const counts = new Map();
    for (const t of report.tables) counts.set(t.namespace, (counts.get(t.namespace) || 0) + 1);
    const shared = counts.has(SHARED);
    setShared(shared);
    document.getElementById("ns-shared").hidden = !shared;
    document.getElementById("ns-shared").title = "--shared-db: every access key and region sees these tables";
    const ns = namespace();
    select.replaceChildren(new Option(counts.size ? "Namespaces with tables…" : "No tables yet", ""));
    for (const [id, n] of [...counts.entries()].sort()) {
      const opt = new Option(id === SHARED ? `shared database (${n} tables)` : `${id.replace("/", " · ")} (${n} table${n === 1 ? "" : "s"})`, id);
      opt.selected = id === `${ns.accessKey}/${ns.region}`;
      select.append(opt);
    }
    select.hidden = shared;
  } catch {
    select.hidden = true;
  }
}

function switchNamespace(accessKey, region) {
  setNamespace(accessKey.trim(), region.trim());
  const ns = namespace();
  localStorage.setItem("ddbemu.accessKey", ns.accessKey);
  localStorage.setItem("ddbemu.region", ns.region);
  clearSamples();
  chooseNamespaceFields();
  route();
  listNamespaces();
}

function chooseNamespaceFields() {
  const ns = namespace();
  document.getElementById("ns-key").value = ns.accessKey;
  document.getElementById("ns-region").value = ns.region;
}

async function route() {
  const mine = ++generation;
  const [page, arg] = (location.hash.replace(/^#\/?/, "") || "tables").split("/");
  const name = arg ? decodeURIComponent(arg) : undefined;
  stopTail();
  for (const a of document.querySelectorAll("[data-nav]")) a.classList.toggle("active", a.dataset.nav === page);
  const isCurrent = () => mine === generation;
  const target = document.createElement("div");
  try {
    if (page === "tables" && name) await renderTable(target, name);
    else if (page === "items") await renderItems(target, name);
    else if (page === "streams") await renderStreams(target, name);
    else if (page === "monitor") await renderMonitor(target, name, isCurrent);
    else if (page === "clock") await renderClock(target);
    else await renderTables(target);
  } catch (e) {
    if (!isCurrent()) return;
    target.replaceChildren();
    const p = document.createElement("p");
    p.className = "error-text";
    p.textContent = e.message;
    target.append(p);
    toast(e.message, "error");
  }
  if (!isCurrent()) return;
  view.replaceChildren(...target.childNodes);
  document.title = `${page[0].toUpperCase()}${page.slice(1)}${name ? " · " + name : ""} · DynamoDB console · ddbemu`;
}

document.getElementById("namespace-form").addEventListener("submit", (e) => {
  e.preventDefault();
  switchNamespace(document.getElementById("ns-key").value, document.getElementById("ns-region").value);
});
document.getElementById("ns-known").addEventListener("change", (e) => {
  const id = e.target.value;
  if (!id) return;
  const slash = id.indexOf("/");
  switchNamespace(id.slice(0, slash), id.slice(slash + 1));
});
window.addEventListener("hashchange", route);

chooseNamespace();
startClock();
startSampler();
// The first view waits for the namespaces, so it knows whether they are shared.
listNamespaces().finally(route);
