// clock.js - the engine clock (GET/POST /ddbemu/clock) that TTL expiry and
// stream times follow, its controls (advance, set), and a TTL sweep now
// (POST /ddbemu/ttl/sweep). The header's small clock is updated from here.

import { control } from "./api.js";
import { h, toast } from "./format.js";

let last = null; // {now_ms, now, at: browser time when read}

/** Reads the clock and updates the header; returns the clock answer. */
export async function refreshClock() {
  const c = await control("clock");
  last = { ...c, at: Date.now() };
  showMini();
  return c;
}

function engineNow() {
  return last ? last.now_ms + (Date.now() - last.at) : null;
}

function showMini() {
  const el = document.getElementById("clock-mini");
  const now = engineNow();
  if (el && now !== null) el.textContent = new Date(now).toISOString().replace("T", " ").slice(0, 19) + " UTC";
}

/** Keeps the header's clock ticking; re-reads the server every 10 s. */
export function startClock() {
  refreshClock().catch(() => {});
  setInterval(showMini, 1000);
  setInterval(() => refreshClock().catch(() => {}), 10000);
}

const STEPS = [["+1 minute", 60e3], ["+1 hour", 3600e3], ["+1 day", 86400e3], ["+7 days", 7 * 86400e3]];

export async function renderClock(view) {
  await refreshClock();
  const now = h("div", { class: "big-clock", id: "clock-now" });
  const epoch = h("div", { class: "muted", id: "clock-epoch" });
  const result = h("p", { class: "result", id: "sweep-result" });
  const draw = () => {
    const ms = engineNow();
    now.textContent = new Date(ms).toISOString().replace("T", " ").slice(0, 23) + " UTC";
    epoch.textContent = `${Math.floor(ms / 1000)} epoch seconds (a TTL attribute below this is expired) · ${ms} ms`;
  };
  // Ticks while the view is shown; the view is drawn off-page first, so only
  // leaving it after it was shown stops the ticking.
  let shown = false;
  const tick = setInterval(() => {
    if (now.isConnected) (shown = true), draw();
    else if (shown) clearInterval(tick);
  }, 250);
  const advance = async (ms) => {
    try {
      await control("clock", { advance_ms: ms });
      await refreshClock();
      draw();
      toast(`Clock advanced ${ms >= 0 ? "by" : "back"} ${Math.abs(ms / 1000).toLocaleString("en-US")} s`);
    } catch (e) { toast(e.message, "error"); }
  };
  const custom = h("input", { id: "advance-amount", type: "number", value: "2", min: "0", step: "any" });
  const unit = h("select", { id: "advance-unit" }, [["seconds", 1e3], ["minutes", 60e3], ["hours", 3600e3], ["days", 86400e3]].map(([l, v]) => h("option", { value: v, selected: l === "hours" }, l)));
  const setAt = h("input", { id: "set-at", type: "datetime-local", step: "1" });
  view.replaceChildren(
    h("h1", {}, "Clock and TTL"),
    h("p", { class: "muted" }, "Everything timed follows the engine clock: TTL expiry, stream record times, the 24-hour trim, shard rollover, iterator expiry and backups. It keeps running from wherever you set it."),
    h("section", { class: "panel" }, h("h2", {}, "Engine clock"), now, epoch,
      h("div", { class: "row" }, STEPS.map(([label, ms]) => h("button", { class: "btn", onclick: () => advance(ms) }, label))),
      h("div", { class: "row" },
        h("label", { class: "field" }, h("span", {}, "Advance by"), custom), h("label", { class: "field" }, h("span", {}, "Unit"), unit),
        h("button", { class: "btn primary", id: "advance", onclick: () => advance(Math.round(Number(custom.value) * Number(unit.value))) }, "Advance")),
      h("div", { class: "row" },
        h("label", { class: "field" }, h("span", {}, "Set to (UTC)"), setAt),
        h("button", { class: "btn", onclick: async () => {
          if (!setAt.value) return toast("Choose a date and time", "error");
          try {
            await control("clock", { set_ms: Date.parse(setAt.value + "Z") });
            await refreshClock();
            draw();
            toast("Clock set");
          } catch (e) { toast(e.message, "error"); }
        } }, "Set clock"),
        h("button", { class: "btn", onclick: async () => {
          await control("clock", { set_ms: Date.now() });
          await refreshClock();
          draw();
          toast("Clock set to this computer's time");
        } }, "Back to real time"))),
    h("section", { class: "panel" }, h("h2", {}, "Time to Live"),
      h("p", {}, "The sweeper deletes expired items every --ttl-interval seconds. Sweep now to see the effect of moving the clock at once; each deletion is an ordinary delete, with a REMOVE stream record from the DynamoDB service."),
      h("div", { class: "row" },
        h("button", { class: "btn primary", id: "ttl-sweep", onclick: async () => {
          try {
            const r = await control("ttl/sweep", {});
            result.textContent = `Deleted ${r.deleted} expired item${r.deleted === 1 ? "" : "s"}.`;
          } catch (e) { toast(e.message, "error"); }
        } }, "Run TTL sweep now"), result)));
  draw();
}
