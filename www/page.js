// The lesson page around the component: share links. The page's settings live in the URL hash
// (#interval=5s&crash-at=10:02:10&cursor=10:00:58); on load they become the element's attributes, and every
// change the student makes is written back.
import { SETTINGS } from "../pkg/settings.js";
import { mountDedupeSql } from "./dedupe-sql.js";

// The playground: the full lab, whose settings a link shares.
const lab = document.querySelector("#lab");
// Every setting's attribute (from the settings table), and the view's sink and scenario.
const SHARED = [...SETTINGS.map((s) => s.attribute), "sink", "scenario", "cursor"];

// A choice left at its default is not written: a link names what the student changed.
const CHOICE_DEFAULTS = Object.fromEntries(SETTINGS.filter((s) => s.unit.kind === "choice")
  .map((s) => [s.attribute, s.unit.choices.find((c) => c.value === s.default)?.flag_value]));

const params = new URLSearchParams(location.hash.slice(1));
for (const [name, value] of params) if (SHARED.includes(name)) lab.setAttribute(name, value);
// The element is defined once its attributes are set: it starts from the link's settings (and
// draws its first chart from them) rather than from the defaults. The page serves this script
// bundled with the element (pkg/lesson-page.js): a script on the page reaches the very module the
// element runs, and its engine, as this module's `element`.
export const element = await import("../pkg/checkpoint-lab.js");
const { toAttributes } = element;
// "What the sink sees twice": the lesson's dedupe query, run by SQLite (loaded only when the
// section is reached) over the lab's append-only table; its state, for a script on the page.
export const dedupeSql = mountDedupeSql(document.querySelector("#sink-sees-twice"), lab);

// Every value is written the way the attribute reads it ("7s", "2GB", "10:00:45"), by the same
// settings table the engine validates with, so a shared link runs exactly what the student saw.
// The scenario time the student looks at is part of the link too ("cursor=10:00:58").
let settings = new URLSearchParams([...params].filter(([name]) => SHARED.includes(name) && name !== "cursor"));
let cursor = params.get("cursor");
const writeHash = () => {
  const out = new URLSearchParams(settings);
  if (cursor) out.set("cursor", cursor);
  history.replaceState(null, "", `#${out}`);
};

// Rewriting the URL costs the browser several milliseconds (9 ms for a page's first), too much
// for every frame of a drag: the link follows when the change settles. A change after a quiet
// spell (a key press, a click) is written once its frame is shown, in a task of its own, so the
// frame does not wait for it; during a burst of changes (a drag) the link waits until the
// pointer is let go and no change has come for SETTLE_MS.
const SETTLE_MS = 250;
// settleTimer while a change's link waits for its frame (see afterFrame).
const AFTER_FRAME = -1;
let latest, settleTimer, lastChangeAt = -Infinity, pointerDown = false;
const afterFrame = () => {
  settleTimer = AFTER_FRAME;
  requestAnimationFrame(() => setTimeout(() => { if (settleTimer === AFTER_FRAME) writeSettings(); }));
};
const writeSettings = async () => {
  settleTimer = undefined;
  if (!latest) return;
  const changed = latest;
  latest = undefined;
  const text = await toAttributes(changed);
  settings = new URLSearchParams();
  for (const [name, value] of Object.entries(text)) {
    if (CHOICE_DEFAULTS[name] !== value) settings.set(name, value);
  }
  writeHash();
};
const settleLater = () => {
  clearTimeout(settleTimer);
  settleTimer = setTimeout(() => (pointerDown ? settleLater() : writeSettings()), SETTLE_MS);
};
lab.addEventListener("checkpointlab-change", (event) => {
  latest = event.detail.settings;
  const now = performance.now();
  const quiet = now - lastChangeAt >= SETTLE_MS && !pointerDown;
  lastChangeAt = now;
  if (quiet && settleTimer === undefined) afterFrame();
  else if (settleTimer !== AFTER_FRAME) settleLater();
});
addEventListener("pointerdown", () => { pointerDown = true; }, true);
for (const type of ["pointerup", "pointercancel"]) {
  addEventListener(type, () => {
    pointerDown = false;
    if (latest) settleLater();
  }, true);
}
// Leaving the page: the link the student last saw is the one kept in history.
addEventListener("pagehide", () => { if (latest) writeSettings(); });

let cursorTimer;
lab.addEventListener("checkpointlab-cursor", (event) => {
  cursor = event.detail.at;
  clearTimeout(cursorTimer);
  cursorTimer = setTimeout(() => {
    cursorTimer = undefined;
    writeHash();
  }, SETTLE_MS);
});
// Leaving within SETTLE_MS of a cursor move: the move is written now.
addEventListener("pagehide", () => {
  if (cursorTimer === undefined) return;
  clearTimeout(cursorTimer);
  cursorTimer = undefined;
  if (!latest) writeHash();
});

// A link pasted into a tab already on the lesson changes only the hash: the lab takes its
// settings (those it does not name go back to their defaults), and what the page would have
// written of the student's earlier changes is dropped, so the link stays the truth.
addEventListener("hashchange", () => {
  // A fragment that names a place on the page (#sink-sees-twice) is no link to settings.
  if (location.hash.length > 1 && !location.hash.includes("=")) return;
  const next = new URLSearchParams(location.hash.slice(1));
  latest = undefined;
  clearTimeout(settleTimer);
  settleTimer = undefined;
  clearTimeout(cursorTimer);
  cursorTimer = undefined;
  settings = new URLSearchParams([...next].filter(([name]) => SHARED.includes(name) && name !== "cursor"));
  cursor = next.get("cursor");
  let changed = false;
  for (const name of SHARED) {
    if (next.has(name)) {
      lab.setAttribute(name, next.get(name));
      changed = true;
    } else if (lab.hasAttribute(name)) {
      lab.removeAttribute(name);
      changed = true;
    }
  }
  // A link naming nothing the element holds still brings back the defaults the student moved from.
  if (!changed) lab.refresh?.(true);
});

lab.addEventListener("checkpointlab-ready", () => { document.body.dataset.ready = "true"; });
if (lab.dataset.ready) document.body.dataset.ready = "true";

// "Break it": what at-least-once checkpoints count twice, or what offsets committed on a timer,
// apart from the state, lose or count twice, from the figure's own run (its report's
// counted_twice_events and skipped_events); the sinks' duplicate rows cannot show it.
const breakIt = document.querySelector("#break-it checkpoint-lab");
const countedTwice = document.querySelector("[data-counted-twice]");
const showCountedTwice = () => {
  const report = breakIt.report();
  const n = report?.counted_twice_events;
  const lost = report?.skipped_events ?? 0;
  if (n === undefined || !countedTwice) return;
  const count = (events) => events.toLocaleString("en-US");
  countedTwice.dataset.count = String(n);
  countedTwice.dataset.lost = String(lost);
  const parts = [];
  if (lost > 0) {
    parts.push(`Lost: ${count(lost)} events lie between the restored checkpoint's offsets and the offsets the consumer last committed, so the state never counted them and the replay starts past them: every total that includes them is too low.`);
  }
  if (n > 0) {
    parts.push(`Counted twice: ${count(n)} events are in the restored checkpoint's state and again in its replay, so every total that includes them is too high.`);
  }
  if (parts.length === 0) {
    parts.push("Counted twice: none. The restored state and the offsets the replay starts from were taken at the same point of every channel.");
  }
  countedTwice.textContent = parts.join(" ");
};
breakIt?.addEventListener("checkpointlab-change", showCountedTwice);
breakIt?.whenReady?.().then(showCountedTwice);
