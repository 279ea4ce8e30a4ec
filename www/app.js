// The lesson page: builds the controls, runs the engine on every change and redraws the charts,
// the headline figures and the crash table in the same frame. Text only through textContent.
import init, { Lab, Player, defaults } from "../pkg/checkpoint_lab.js";

const S = 1e3, MIN = 60e3, MB = 1e6, GB = 1e9;
const INTERVALS_MS = [1 * S, 2 * S, 3 * S, 5 * S, 10 * S, 15 * S, 20 * S, 30 * S, 45 * S, 1 * MIN, 1.5 * MIN, 2 * MIN, 3 * MIN, 5 * MIN, 7.5 * MIN, 10 * MIN];
const STATE_BYTES = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1e3, 2e3, 5e3, 10e3, 20e3, 50e3, 100e3].map((m) => m * MB);
const BACKPRESSURE_MS = [0, 0.5 * S, 1 * S, 2 * S, 3 * S, 5 * S, 10 * S];
const RATES = [500, 1000, 2000, 5000, 10000, 20000];
const CAPACITIES = [1000, 2000, 2500, 3000, 4000, 6000, 8000, 10000, 20000, 40000];
const DETECTION_MS = [1 * S, 2 * S, 5 * S, 10 * S, 20 * S, 30 * S, 1 * MIN];
const STORE_WRITE = [10 * MB, 20 * MB, 50 * MB, 100 * MB, 200 * MB, 500 * MB, 1 * GB, 2 * GB, 5 * GB, 10 * GB];
const SLA_MS = [10 * S, 30 * S, 1 * MIN, 2 * MIN, 5 * MIN, 10 * MIN, 30 * MIN];
const SINKS = [["append-only", "append-only"], ["upsert", "upsert"], ["transactional", "transactional"], ["dedupe-view", "dedupe view"]];
const CHARTS = [
  ["replay", "Consumer lag and replay"],
  ["latency", "What a reader sees: staleness per sink"],
  ["sink-window", "What each sink holds for one window"],
  ["tradeoff", "Choosing the interval"],
  ["checkpoints", "Checkpoint timeline"],
];

export const PRESETS = {
  lesson: { label: "The lesson's example", settings: {} },
  tiny: { label: "A tiny interval (1 s)", settings: { interval_ms: 1 * S } },
  slowStore: { label: "A slow store (50 MB/s)", settings: { interval_ms: 5 * S, store_write_bytes_per_s: 50 * MB } },
  backpressure: { label: "Backpressure (3 s, aligned)", settings: { backpressure_ms: 3 * S, alignment: "aligned" } },
};

// ---------- formatting for people ----------
const count = (n) => Math.round(n).toLocaleString("en-US");
function duration(ms) {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60e3) return `${+(ms / 1e3).toFixed(1)} s`;
  if (ms < 3600e3) return `${+(ms / 60e3).toFixed(1)} min`;
  return `${+(ms / 3600e3).toFixed(1)} h`;
}
function bytes(b) {
  for (const [unit, scale] of [["TB", 1e12], ["GB", 1e9], ["MB", 1e6], ["KB", 1e3]]) {
    if (b >= scale) return `${+(b / scale).toPrecision(3)} ${unit}`;
  }
  return `${b} B`;
}
function clock(ms) {
  const t = Math.round(ms / 1000);
  const p = (n) => String(n).padStart(2, "0");
  return `${p(Math.floor(t / 3600) % 24)}:${p(Math.floor(t / 60) % 60)}:${p(t % 60)}`;
}
const nearest = (list, v) => list.reduce((best, x, i) => (Math.abs(x - v) < Math.abs(list[best] - v) ? i : best), 0);

// ---------- DOM helpers ----------
function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  for (const c of children) node.append(c);
  return node;
}

/// A labelled range slider over a list of values, with a live readout.
function listSlider(id, label, values, format, describe) {
  const input = el("input", { id, type: "range", min: "0", max: String(values.length - 1), step: "1" });
  const out = el("output", { for: id, class: "readout", "aria-live": "off" });
  const row = el("div", { class: "control" }, el("label", { for: id }, label), input, out);
  const control = {
    row, input,
    get: () => values[Number(input.value)],
    set: (v) => { input.value = String(nearest(values, v)); control.show(); },
    show: () => {
      const text = format(values[Number(input.value)]);
      out.textContent = describe ? `${text} ${describe(values[Number(input.value)])}` : text;
      input.setAttribute("aria-valuetext", text);
    },
  };
  return control;
}

function select(id, label, options) {
  const input = el("select", { id });
  for (const [value, text] of options) input.append(el("option", { value: String(value) }, text));
  const row = el("div", { class: "control control-select" }, el("label", { for: id }, label), input);
  return { row, input, get: () => input.value, set: (v) => { input.value = String(v); } };
}

function setupUI(root) {
  root.replaceChildren();
  const base = defaults();
  const start = base.start_time_ms;
  const horizonS = base.horizon_ms / 1000;
  const c = {};
  c.interval = listSlider("interval", "Checkpoint interval", INTERVALS_MS, duration);
  c.state = listSlider("state-size", "State size", STATE_BYTES, bytes);
  const crashValues = Array.from({ length: horizonS - 1 }, (_, i) => i + 1);
  c.crash = listSlider("crash-at", "Crash time", crashValues, (s) => clock(start + s * 1000), (s) => `(+${s} s)`);
  const main = el("div", { class: "controls" }, c.interval.row, c.state.row, c.crash.row);

  c.sink = select("sink", "Sink design to highlight", SINKS);
  c.alignment = select("alignment", "Barrier alignment", [["aligned", "aligned"], ["unaligned", "unaligned"]]);
  c.backpressure = listSlider("backpressure", "Backpressure (slow input)", BACKPRESSURE_MS, (ms) => (ms ? duration(ms) : "none"));
  c.snapshots = select("snapshots", "Snapshots", [["full", "full"], ["incremental", "incremental"]]);
  c.rate = listSlider("rate", "Input rate", RATES, (r) => `${count(r)} events/s`);
  c.capacity = listSlider("capacity", "Capacity", CAPACITIES, (r) => `${count(r)} events/s`);
  c.detection = listSlider("detection", "Failure detection", DETECTION_MS, duration);
  c.storeWrite = listSlider("store-write", "Store write bandwidth", STORE_WRITE, (b) => `${bytes(b)}/s`);
  c.sla = listSlider("sla", "Latency SLA", SLA_MS, duration);
  c.window = select("window", "Window shown", []);
  for (let w = Math.floor(start / base.window_ms) * base.window_ms; w < start + base.horizon_ms; w += base.window_ms) {
    c.window.input.append(el("option", { value: String(w) }, clock(w)));
  }
  c.product = select("product", "Product shown", Array.from({ length: 10 }, (_, i) => [i, `product ${i}`]));
  const advanced = el("details", { class: "advanced" }, el("summary", {}, "More settings"),
    el("div", { class: "controls" }, c.sink.row, c.alignment.row, c.backpressure.row, c.snapshots.row, c.rate.row,
      c.capacity.row, c.detection.row, c.storeWrite.row, c.sla.row, c.window.row, c.product.row));

  const preset = select("preset", "Preset", Object.entries(PRESETS).map(([k, p]) => [k, p.label]));
  const reset = el("button", { type: "button", id: "reset" }, "Reset to defaults");
  const play = el("button", { type: "button", id: "play", "aria-pressed": "false" }, "Play");
  const speed = select("speed", "Speed", [[5, "5×"], [10, "10×"], [30, "30×"], [60, "60×"]]);
  speed.set(10);
  const actions = el("div", { class: "actions" }, preset.row, reset, play, speed.row);

  const figures = el("ul", { class: "figures", "aria-label": "Headline figures" });
  const figure = (key, label) => {
    const value = el("span", { class: "value", "data-figure": key });
    figures.append(el("li", {}, value, el("span", { class: "label" }, label)));
    return value;
  };
  const f = {
    replayed_events: figure("replayed_events", "events replayed"),
    interval_replay_events: figure("interval_replay_events", "replay per interval"),
    worst_case_replay_events: figure("worst_case_replay_events", "worst-case replay"),
    recovery_s: figure("recovery_s", "crash to caught up"),
    store_write_bytes_per_min: figure("store_write_bytes_per_min", "written to the store"),
    pause_overhead: figure("pause_overhead", "time paused"),
  };
  const dupes = {};
  for (const [key, name] of [["append_only", "append-only"], ["upsert", "upsert"], ["transactional", "transactional"], ["dedupe_view", "dedupe view"]]) {
    dupes[key] = figure(`${key}.duplicate_rows`, `duplicate rows, ${name}`);
  }
  const warnings = el("div", { class: "warnings", role: "status", "aria-live": "polite" });

  const charts = {};
  const chartList = el("div", { class: "charts" });
  for (const [name, title] of CHARTS) {
    const canvas = el("canvas", { class: "chart", id: `chart-${name}`, role: "img", "aria-label": title });
    const summary = el("p", { class: "alt-summary" });
    const table = el("table", { class: "data" });
    const details = el("details", { class: "alt" }, el("summary", {}, `${title}: summary and data`), summary, table);
    details.addEventListener("toggle", () => details.open && fillAlternative(name));
    chartList.append(el("figure", { class: "chart-figure" }, canvas, details));
    charts[name] = { canvas, summary, table, details };
  }
  const crashTable = el("table", { class: "crash-table", id: "crash-table" });
  const error = el("p", { class: "error", role: "alert" });
  root.append(
    el("h2", {}, "Try it"), main, advanced, actions, error, figures, warnings,
    el("h2", {}, "A crash, second by second"), crashTable,
    el("h2", {}, "Charts"), chartList,
  );
  return { c, f, dupes, warnings, charts, crashTable, error, preset, reset, play, speed, base };
}

// ---------- state ----------
let lab, ui, cursorS, player, pending = false, altTimer;
const timings = [];
window.__checkpointLab = { timings };

function settings() {
  const { c, base } = ui;
  return {
    interval_ms: c.interval.get(),
    state_bytes: c.state.get(),
    crash_at_ms: base.start_time_ms + c.crash.get() * 1000,
    alignment: c.alignment.get(),
    backpressure_ms: c.backpressure.get(),
    snapshots: c.snapshots.get(),
    rate_per_s: c.rate.get(),
    capacity_per_s: c.capacity.get(),
    detection_ms: c.detection.get(),
    store_write_bytes_per_s: c.storeWrite.get(),
    latency_sla_ms: c.sla.get(),
  };
}

function apply(values) {
  const { c, base } = ui;
  const v = { ...base, ...values };
  c.interval.set(v.interval_ms);
  c.state.set(v.state_bytes);
  c.crash.set((v.crash_at_ms - base.start_time_ms) / 1000);
  c.alignment.set(v.alignment);
  c.backpressure.set(v.backpressure_ms);
  c.snapshots.set(v.snapshots);
  c.rate.set(v.rate_per_s);
  c.capacity.set(v.capacity_per_s);
  c.detection.set(v.detection_ms);
  c.storeWrite.set(v.store_write_bytes_per_s);
  c.sla.set(v.latency_sla_ms);
}

function sizeCanvas(canvas) {
  const dpr = window.devicePixelRatio || 1;
  const rect = canvas.getBoundingClientRect();
  const w = Math.max(1, Math.round(rect.width * dpr)), h = Math.max(1, Math.round(rect.height * dpr));
  if (canvas.width !== w || canvas.height !== h) { canvas.width = w; canvas.height = h; }
  return dpr;
}

function drawCharts() {
  const dark = window.matchMedia("(prefers-color-scheme: dark)").matches;
  for (const [name] of CHARTS) {
    const { canvas } = ui.charts[name];
    const dpr = sizeCanvas(canvas);
    lab.draw(name, canvas, dark, dpr, name === "tradeoff" ? undefined : cursorS);
  }
}

function fillAlternative(name) {
  const { summary, table, details, canvas } = ui.charts[name];
  const alt = lab.text_alternative(name);
  canvas.setAttribute("aria-label", alt.summary);
  if (!details.open) return;
  summary.textContent = alt.summary;
  const head = el("tr", {}, ...alt.columns.map((col) => el("th", { scope: "col" }, col)));
  const rows = alt.rows.map((r) => el("tr", {}, ...r.map((cell) => el("td", {}, cell))));
  table.replaceChildren(el("thead", {}, head), el("tbody", {}, ...rows));
}

function showFigures(s) {
  const { f, dupes } = ui;
  f.replayed_events.textContent = count(s.replayed_events);
  f.interval_replay_events.textContent = count(s.interval_replay_events);
  f.worst_case_replay_events.textContent = count(s.worst_case_replay_events);
  f.recovery_s.textContent = s.recovery_s == null ? "never" : `${Math.round(s.recovery_s)} s`;
  f.store_write_bytes_per_min.textContent = `${bytes(s.store_write_bytes_per_min)}/min`;
  f.pause_overhead.textContent = `${(s.pause_overhead * 100).toFixed(2)}%`;
  for (const key of Object.keys(dupes)) dupes[key].textContent = count(s.duplicate_rows[key]);
  ui.warnings.replaceChildren(...s.warnings.map((w) => el("p", { class: "warning" }, w)));
}

function showCrashTable() {
  const rows = lab.crash_table();
  const head = el("tr", {}, el("th", { scope: "col" }, "time"), el("th", { scope: "col" }, "offset"), el("th", { scope: "col" }, "what happens"));
  const body = rows.map((r) => el("tr", {}, el("td", {}, r.at.at), el("td", { class: "num" }, r.offset == null ? "" : count(r.offset)), el("td", {}, r.what)));
  ui.crashTable.replaceChildren(el("thead", {}, head), el("tbody", {}, ...body));
}

/// Re-runs the engine and redraws everything; `started` is when the input arrived.
function update(started = performance.now()) {
  for (const c of Object.values(ui.c)) c.show?.();
  try {
    lab.select(ui.c.sink.get(), Number(ui.c.window.get()), Number(ui.c.product.get()));
    const summary = lab.run(settings());
    showFigures(summary);
    drawCharts();
    showCrashTable();
    ui.error.textContent = "";
    timings.push(performance.now() - started);
  } catch (e) {
    ui.error.textContent = String(e.message || e);
  }
  clearTimeout(altTimer);
  altTimer = setTimeout(() => { for (const [name] of CHARTS) fillAlternative(name); }, 250);
  writeShareLink();
}

/// Coalesces bursts of input events into one update per frame.
function schedule() {
  const started = performance.now();
  if (pending) return;
  pending = true;
  requestAnimationFrame(() => { pending = false; update(started); });
}

function writeShareLink() {
  const s = settings();
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(s)) if (v !== ui.base[k]) params.set(k, String(v));
  const hash = params.toString();
  history.replaceState(null, "", hash ? `#${hash}` : location.pathname);
}

function readShareLink() {
  const params = new URLSearchParams(location.hash.slice(1));
  const values = {};
  for (const [k, v] of params) values[k] = k === "alignment" || k === "snapshots" ? v : Number(v);
  return values;
}

function togglePlay() {
  if (player) {
    player.free();
    player = undefined;
    ui.play.textContent = "Play";
    ui.play.setAttribute("aria-pressed", "false");
    return;
  }
  const crashS = ui.c.crash.get();
  const from = cursorS !== undefined && cursorS < ui.base.horizon_ms / 1000 - 1 ? cursorS : Math.max(0, crashS - 20);
  player = new Player(from, ui.base.horizon_ms / 1000, Number(ui.speed.get()), (t) => {
    cursorS = t;
    drawCharts();
    if (t >= ui.base.horizon_ms / 1000) togglePlay();
  });
  ui.play.textContent = "Pause";
  ui.play.setAttribute("aria-pressed", "true");
}

async function main() {
  const wasm = await init();
  window.__checkpointLab.memoryBytes = () => wasm.memory.buffer.byteLength;
  lab = new Lab();
  ui = setupUI(document.getElementById("lab"));
  apply(readShareLink());
  for (const c of Object.values(ui.c)) c.input.addEventListener(c.input.tagName === "SELECT" ? "change" : "input", schedule);
  ui.preset.input.addEventListener("change", () => { apply(PRESETS[ui.preset.get()].settings); update(); });
  ui.reset.addEventListener("click", () => { ui.preset.set("lesson"); apply({}); cursorS = undefined; update(); });
  ui.play.addEventListener("click", togglePlay);
  window.addEventListener("resize", schedule);
  window.matchMedia("(prefers-color-scheme: dark)").addEventListener("change", schedule);
  update();
  window.__checkpointLab.firstChartMs = performance.now();
  document.body.dataset.ready = "true";
}

main();
