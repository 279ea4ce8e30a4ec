// <checkpoint-lab>: the lesson component. Ships in pkg/ as checkpoint-lab.js next to the wasm
// glue; a page needs nothing else. Everything it shows lives in its shadow root, text goes in
// through textContent only, and styles come from checkpoint-lab.css beside this module.
import init, * as glue from "./checkpoint_lab.js";
// The settings table (generated from src/engine/settings.rs): keys, attributes, units,
// ranges, slider steps and labels. The controls below are built from it.
import { SETTINGS, BUILTIN_EXERCISE_IDS } from "./settings.js";

const S = 1e3, MB = 1e6;
/// Settings with a control on the page, in the table's order.
const MAIN_SETTINGS = SETTINGS.filter((s) => s.control === "main");
const ADVANCED_SETTINGS = SETTINGS.filter((s) => s.control === "advanced");
const CONTROLLED = [...MAIN_SETTINGS, ...ADVANCED_SETTINGS];
const SETTINGS_BY_KEY = Object.fromEntries(SETTINGS.map((s) => [s.key, s]));
const SINKS = [["append-only", "append-only"], ["upsert", "upsert"], ["transactional", "transactional"], ["dedupe-view", "dedupe view"]];
const CHARTS = [
  ["pipeline", "The pipeline at the cursor"],
  ["replay", "Consumer lag and replay"],
  ["latency", "What a reader sees: staleness per sink"],
  ["sink-window", "What each sink holds for one window"],
  ["tradeoff", "Choosing the interval"],
  ["checkpoints", "Checkpoint timeline"],
];
const ALL_CONTROLS = [...MAIN_SETTINGS.map((s) => s.attribute), "advanced", "actions", "compare"];
/// How long a slice of the world's preparation for the text alternatives runs, in ms.
const PREPARE_SLICE_MS = 8;
/// A chart farther than this outside the viewport is not redrawn while the student drags or
/// scrubs: it is drawn as it nears the viewport, or once the changes pause for
/// OUT_OF_VIEW_SETTLE_MS (and before set() or mount() resolves).
const OUT_OF_VIEW_MARGIN = "200px 0px";
const OUT_OF_VIEW_SETTLE_MS = 200;
/// Charts over the scenario clock: a click, a drag or a hover on one moves the cursor.
const TIME_CHARTS = ["replay", "latency", "checkpoints", "sink-window"];
/// What the `charts` option may name: any chart, the headline figures and the crash table.
const ALL_VIEWS = [...CHARTS.map(([name]) => name), "figures", "crash-table"];
/// How long the spoken description of the pipeline waits between two updates while the cursor moves.
const DESCRIBE_EVERY_MS = 600;
/// Engine time per frame for runs started by the student: the page never blocks for longer.
const FRAME_BUDGET_MS = 16;
/// About how many events the engine hashes in FRAME_BUDGET_MS: a run that hashes more (counting
/// a new data plane, or simulating without one) takes several frames.
const EVENTS_PER_FRAME = 4_000_000;
/// Engine time per slice of the warm-up runs made while the student reads (see warmUpLater).
const WARM_UP_SLICE_MS = 4;
/// The idle time a warm-up step waits for: about what its longest step, a chart's first
/// drawing, takes.
const WARM_UP_IDLE_MS = 10;
/// Whether a view of this page has started the warm-up runs.
let warmedUp = false;
/// Engine time per slice of simulate(), which has no frame to share: well inside a 50 ms task.
const SIMULATE_SLICE_MS = 10;

/// Named scenarios: the settings each changes from the lesson's default.
export const SCENARIOS = {
  lesson: { label: "The lesson's example", settings: {} },
  "tiny-interval": { label: "A tiny interval (1 s)", settings: { interval_ms: 1 * S } },
  "slow-store": { label: "A slow store (50 MB/s)", settings: { interval_ms: 5 * S, store_write_bytes_per_s: 50 * MB } },
  backpressure: { label: "Backpressure (3 s, aligned)", settings: { backpressure_ms: 3 * S, alignment: "aligned" } },
};

/// Keys mount() and set() accept besides the engine's config keys.
const VIEW_OPTIONS = ["sink", "controls", "theme", "scenario", "exercise", "exercises", "charts", "cursor"];
const THEMES = ["light", "dark", "auto"];

/// A JavaScript value as an error message names it, without running any of its code.
function describeValue(value) {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  switch (typeof value) {
    case "string": return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
    case "number": case "boolean": case "bigint": return String(value);
    case "symbol": return "a symbol";
    case "function": return "a function";
    case "undefined": return "undefined";
    default: return "an object";
  }
}

/// A view option (from mount()/set() or its attribute), checked like a setting: a string, or a
/// list of names; anything else throws an Error naming the option.
function textOption(name, value) {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") throw new Error(`${name}: must be a string (got ${describeValue(value)})`);
  return value;
}

/// A list option ("a b c" or ["a", "b", "c"]) whose every name must be in `known`, when given.
function listOption(name, value, known) {
  if (value === undefined || value === null) return undefined;
  const names = Array.isArray(value) ? value : typeof value === "string" ? value.split(/[\s,]+/).filter(Boolean) : null;
  if (!names || names.some((n) => typeof n !== "string")) {
    throw new Error(`${name}: must be a string of names separated by spaces, or an array of strings (got ${describeValue(value)})`);
  }
  if (known) {
    const unknown = names.find((n) => !known.includes(n));
    if (unknown !== undefined) throw new Error(`${name}: unknown name ${describeValue(unknown)}; the names are ${known.join(", ")}`);
  }
  return names;
}

// ---------- surviving a panic in the engine ----------
// A Rust panic aborts the wasm instance. The engine then tells the page (the event below, while
// the old instance still answers) and is re-created on the next call, so one panic never poisons
// the module. Objects of the discarded instance (each view's Lab and Player) are stale: a view
// makes a new Lab on its next call and runs its settings again.
let restarts = 0;
/// Every live view, to stop its timers and re-run it after a restart.
const views = new Set();
globalThis.addEventListener?.("checkpointlab-engine-restart", () => {
  restarts++;
  for (const view of views) view.engineStopped();
});

/// What a call that trapped throws instead of the bare `RuntimeError`.
function restartedError(e) {
  if (!(e instanceof WebAssembly.RuntimeError)) return e;
  return new Error(`engine: the WebAssembly instance stopped (${e.message}) and was restarted; this call did not complete, the next one runs in the new instance`);
}
/// `fn`, throwing restartedError() instead of a trap.
const guarded = (fn) => (...args) => {
  try {
    return fn(...args);
  } catch (e) {
    throw restartedError(e);
  }
};
const wasmDefaults = guarded(glue.defaults), parseAttributes = guarded(glue.parseAttributes);
const labFormatValue = guarded(glue.formatValue);
/// Whether the lab's module has loaded (see load).
let labLoaded = false;
/// The first chart's module formats values as the lab's does, until that has loaded.
let firstChartFormatValue;
const formatValue = (key, value) => (labLoaded || !firstChartFormatValue ? labFormatValue : firstChartFormatValue)(key, value);
const settingsText = guarded(glue.settingsText);
const Player = glue.Player;
/// For the tests only: panics inside the engine, to prove that a panic does not poison the module.
export const __panicForTests = guarded(glue.__panicForTests);

/// A view's engine handle that outlives a restart: every call goes to the Lab of the current
/// instance (made anew after a restart) and a trap becomes restartedError(). The Lab is made at
/// the first call, so a view can be built before the module has loaded.
function viewLab() {
  let lab, made = restarts;
  return new Proxy({}, {
    get(_, name) {
      if (name === "free") {
        return () => {
          if (lab && made === restarts) lab.free();
          lab = undefined;
        };
      }
      return (...args) => {
        if (!lab || made !== restarts) [lab, made] = [new glue.Lab(), restarts];
        try {
          return lab[name](...args);
        } catch (e) {
          throw restartedError(e);
        }
      };
    },
  });
}

/// A canvas's backing store, in device pixels, for its CSS size at a pixel ratio.
const backingSize = (size, dpr) => [Math.max(1, Math.round(size.width * dpr)), Math.max(1, Math.round(size.height * dpr))];

let ready;
/// Loads the WebAssembly module once per page: compiled while it streams in.
export function load() {
  ready ??= init({ module_or_path: new URL("./checkpoint_lab_bg.wasm", import.meta.url) }).then((module) => {
    labLoaded = true;
    return module;
  });
  return ready;
}

// ---------- the first chart's module ----------
// Where a page's HTML holds no picture of the first frame (a shared link, settings in
// attributes), a module of its own, under half the lab's size, runs the scenario up to where the
// pipeline view first stands and draws it there (src/web/first_chart.rs); the lab's module is
// fetched once that chart is drawn, so on a slow network the student sees the job sooner.
let firstChartReady;
/// How long the lab waits for the first chart's module (and the styles) before it loads anyway.
const FIRST_CHART_PATIENCE_MS = 4000;
/// Where a page may leave the first chart's module ready before the element's module has run,
/// its HTML still being parsed (index.html's head does, on a shared link):
/// `globalThis[FIRST_CHART_MODULE] = { compiled: WebAssembly.compileStreaming(fetch(wasm)) }`, with
/// `module` set to the compiled module once it is, and `glue` to the module namespace of
/// `checkpoint_lab_first.js` once imported. With both, the element instantiates the module in the
/// task that builds its view and runs and draws the first chart in the tasks that follow, without
/// waiting for a module; with the compilation alone, it instantiates what was compiled rather than
/// fetching it again.
/// Anything else found there is ignored.
const FIRST_CHART_MODULE = Symbol.for("checkpoint-lab.first-chart-module");
/// Whether `module` is the first chart's module compiled (it exports drawFirstChart).
const isFirstChartModule = (module) => module instanceof WebAssembly.Module && WebAssembly.Module.exports(module).some((e) => e.name === "drawFirstChart");
/// The first chart's module (its glue, instantiated) at once, where the page left the module
/// compiled and its glue imported (see FIRST_CHART_MODULE); undefined otherwise.
function firstChartNow() {
  const early = globalThis[FIRST_CHART_MODULE];
  const glue = early?.glue;
  if (!isFirstChartModule(early?.module) || typeof glue?.initSync !== "function" || typeof glue.drawFirstChart !== "function") return undefined;
  try {
    glue.initSync({ module: early.module });
  } catch {
    return undefined;
  }
  firstChartFormatValue = glue.formatValue;
  firstChartReady ??= Promise.resolve(glue);
  return glue;
}
/// Loads the first chart's module once per page; resolves to its glue, instantiated.
function loadFirstChart() {
  firstChartReady ??= import("./checkpoint_lab_first.js").then(async (module) => {
    const url = new URL("./checkpoint_lab_first_bg.wasm", import.meta.url);
    // A compilation the page started is awaited rather than repeated; one that fails, or gives
    // another module, is not used.
    const early = globalThis[FIRST_CHART_MODULE]?.compiled;
    const pending = early instanceof Promise ? early.then((m) => (isFirstChartModule(m) ? m : url), () => url) : url;
    await module.default({ module_or_path: pending }).catch((e) => {
      if (pending === url) throw e;
      return module.default({ module_or_path: url });
    });
    firstChartFormatValue = module.formatValue;
    return module;
  });
  firstChartReady.catch(() => { firstChartReady = undefined; });
  return firstChartReady;
}

// ---------- the exercises' module ----------
// The exercises (the catalogue, an author's exercises checked field by field, a student's answer
// checked by running the engine) are a second WebAssembly module with an engine of its own,
// loaded only once a page shows or registers exercises: a lesson page without them never fetches it.
let exercisesReady;
/// What the exercises' module gives (validate) and the panel built on it, once loadExercises()
/// has resolved.
let exercises;
/// Exercises by id: the built-in ones, then any a page registers.
const catalogue = new Map();

/// Loads the exercises' module and their panel (exercise-panel.js) once per page, and reads the
/// built-in exercises into the catalogue.
function loadExercises() {
  exercisesReady ??= Promise.all([import("./checkpoint_lab_exercises.js"), import("./exercise-panel.js")]).then(async ([module, panel]) => {
    await module.default({ module_or_path: new URL("./checkpoint_lab_exercises_bg.wasm", import.meta.url) });
    const [validate, check, reveal] = [module.validateExercises, module.checkExercise, module.revealExercise].map(guarded);
    const Panel = panel.exercisePanel({ el, listOption, controls: ALL_CONTROLS, catalogue, check, reveal });
    for (const exercise of guarded(module.builtinExercises)()) catalogue.set(exercise.id, exercise);
    exercises = { validate, Panel };
  });
  // A failed load is tried again on the next call (a browser may keep the failed module's error).
  exercisesReady.catch(() => { exercisesReady = undefined; });
  return exercisesReady;
}

/// The exercise catalogue; undefined until loadExercises() has resolved.
function exerciseCatalogue() {
  return exercises ? catalogue : undefined;
}

/// The exercises known before the exercises' module has loaded: the built-in ones (a page
/// registers its own through registerExercises(), which loads it).
const BUILTIN_IDS = new Set(BUILTIN_EXERCISE_IDS);

/// Whether an `exercise` or `exercises` value names any exercise.
const namesExercises = (value) => (Array.isArray(value) ? value.length > 0 : value != null && String(value).trim() !== "");

/// Adds exercises written by a lesson author (an array of exercise objects). Throws an Error
/// naming the exercise and the field if one is malformed; returns their ids.
export async function registerExercises(list) {
  await loadExercises();
  const checked = exercises.validate(list);
  for (const exercise of checked) catalogue.set(exercise.id, exercise);
  return checked.map((e) => e.id);
}

/// The ids of every exercise known on this page.
export async function exerciseIds() {
  await loadExercises();
  return [...catalogue.keys()];
}

/// Bytes of wasm linear memory in use (for the page benchmark).
export async function wasmMemoryBytes() {
  const wasm = await load();
  // The current instance's memory (a new one after a restart).
  return (glue.initSync() ?? wasm).memory.buffer.byteLength;
}

/// Calls `work` once the next frame has been rendered, in a task of its own: a slice of engine
/// work never shares a task with the frame's rendering (style, layout, paint and the compositor's
/// commit), so neither makes the other's task long.
function nextFrameThen(work) {
  requestAnimationFrame(() => yieldToPage().then(work));
}

/// Resolves after the page has had its turn (input, rendering), without setTimeout's 4 ms clamp.
function yieldToPage() {
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      resolve();
    };
    channel.port2.postMessage(null);
  });
}

/// Runs a scenario and resolves to the report as a plain object; rejects with an Error naming a
/// bad field. The engine runs in slices of about SIMULATE_SLICE_MS with the page free in between, so
/// a long scenario never blocks it. `options.signal` (an AbortSignal) cancels the run and
/// `options.onProgress(fraction)` hears how far it is.
export async function simulate(config, options = {}) {
  if (options === null || typeof options !== "object") throw new Error("options: must be an object, like { signal, onProgress }");
  const { signal, onProgress } = options;
  if (signal !== undefined && !(signal instanceof AbortSignal)) throw new Error("options.signal: must be an AbortSignal");
  if (onProgress !== undefined && typeof onProgress !== "function") throw new Error("options.onProgress: must be a function");
  await load();
  const made = restarts;
  const lab = new glue.Lab();
  try {
    lab.begin(config); // checks every field first
    for (;;) {
      if (signal?.aborted) throw signal.reason ?? new DOMException("simulate() was cancelled", "AbortError");
      const step = lab.advance(SIMULATE_SLICE_MS);
      if (step.done) return lab.report();
      onProgress?.(step.progress);
      await yieldToPage();
      if (made !== restarts) throw new Error("engine: the WebAssembly instance was restarted during this run; call simulate() again");
    }
  } catch (e) {
    throw restartedError(e);
  } finally {
    if (made === restarts) lab.free();
  }
}

/// The default settings (the lesson's worked example).
export async function defaults() {
  await load();
  return wasmDefaults();
}

/// The same as defaults(), under a name that cannot be mistaken for a variable.
export const defaultConfig = defaults;

/// Settings written as attributes read them ({ interval_ms: 7000 } gives { interval: "7s" }), for
/// share links and markup. Throws an Error naming a bad field.
export async function toAttributes(config) {
  await load();
  return settingsText(config);
}

// ---------- formatting for people: one formatter per unit, in the engine ----------
const count = (n) => formatValue("count", Math.round(n));
const bytes = (b) => formatValue("bytes", b);
const clock = (ms) => formatValue("clock_ms", ms);
/// What a crash at the worst moment of the cycle replays: just before a barrier, or in
/// micro-batch mode just before a batch commits.
const intervalReplayLabel = (batches) => `replayed, crash just before a ${batches ? "commit" : "barrier"}`;
/// Whole seconds as the crash table writes a duration: "55 s", "4 min 7 s", "2 min".
const seconds = (s) => formatValue("duration_ms", Math.round(s) * 1000);
const nearest = (list, v) => list.reduce((best, x, i) => (Math.abs(x - v) < Math.abs(list[best] - v) ? i : best), 0);

/// Sets a node's text only when it changes: a write of the same text still replaces the node's
/// child and makes the browser recompute styles, which a canvas then waits for when it sets its
/// font.
function setText(node, text) {
  if (node.textContent !== text) node.textContent = text;
}

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  for (const c of children) node.append(c);
  return node;
}

let instances = 0;

/// The lesson's default settings, from the settings table (the engine's own defaults, which
/// `defaults()` gives once the module has loaded): a view is built from them before it has.
const DEFAULT_CONFIG = Object.freeze(Object.fromEntries(SETTINGS.map((s) => [s.key, s.default])));

/// One lab inside a shadow root: its own engine handle, controls, charts and state.
class LabView {
  constructor(host, shadow) {
    this.host = host;
    this.shadow = shadow;
    this.id = `cl${++instances}`;
    this.lab = viewLab();
    this.base = { ...DEFAULT_CONFIG };
    this.options = {};
    this.pending = false;
    this.timings = [];
    this.cursorS = undefined;
    this.build();
  }

  // ----- building the UI -----
  /// A slider over a setting's steps that keeps the exact value it was given: a valid value
  /// between two steps runs as given, the thumb sits on the nearest step and the readout shows
  /// the exact value. Moving the thumb picks that step.
  slider(setting, values) {
    const name = setting.attribute;
    const id = `${this.id}-${name}`;
    const input = el("input", { id, type: "range", min: "0", max: String(values.length - 1), step: "1", "data-control": name });
    const out = el("output", { for: id, class: "readout" });
    const labelEl = el("label", { for: id }, setting.label);
    const row = el("div", { class: "control" }, labelEl, input, out);
    const control = {
      row, input, labelEl, setting, values, exact: values[0],
      get: () => control.exact,
      set: (v) => { control.exact = v; input.value = String(nearest(control.values, v)); control.show(); },
      /// New steps (the crash slider follows the horizon); the exact value stays.
      steps: (next) => { control.values = next; input.max = String(next.length - 1); control.set(control.exact); },
      show: () => {
        const text = this.readout(setting, control.exact);
        if (out.textContent === text) return;
        out.textContent = text;
        input.setAttribute("aria-valuetext", text);
      },
    };
    // The readout follows when the run starts (see startRun), after the charts when they are
    // drawn in the input's own task.
    input.addEventListener("input", () => {
      control.exact = control.values[Number(input.value)];
      // Moving the crash slider brings back a crash that was set to none.
      if (setting.key === "crash_at_ms") this.crashNone = false;
    });
    return control;
  }

  /// A setting's value for the readout beside its control.
  readout(setting, value) {
    if (setting.key === "crash_at_ms") return `${clock(value)} (+${Math.round((value - this.startMs) / 1000)} s)`;
    if (setting.key === "backpressure_ms" && value === 0) return "none";
    return formatValue(setting.key, value);
  }

  /// The control for one setting of the table: a select for a choice, else a slider.
  control(setting) {
    if (setting.unit.kind === "choice") {
      const select = this.select(setting.attribute, setting.label, setting.unit.choices.map((c) => [c.value, c.label]));
      select.labelEl = select.row.querySelector("label");
      return select;
    }
    return this.slider(setting, setting.steps.kind === "values" ? setting.steps.values : this.horizonSteps(this.base));
  }

  /// The crash slider's steps: every second of the configured horizon.
  horizonSteps(config) {
    const start = config.start_time_ms, end = config.start_time_ms + config.horizon_ms;
    const steps = [];
    for (let t = start + 1000; t < end; t += 1000) steps.push(t);
    // A horizon of a second or less still offers one valid instant, its middle.
    return steps.length ? steps : [start + Math.max(1, Math.floor(config.horizon_ms / 2))];
  }

  select(name, label, options) {
    const id = `${this.id}-${name}`;
    const input = el("select", { id, "data-control": name });
    for (const [value, text] of options) input.append(el("option", { value: String(value) }, text));
    const row = el("div", { class: "control control-select" }, el("label", { for: id }, label), input);
    return { row, input, get: () => input.value, set: (v) => { input.value = String(v); } };
  }

  build() {
    const base = this.base;
    this.startMs = base.start_time_ms;
    this.horizonMs = base.horizon_ms;
    // Controls for the table's settings, by config key; then the view's own choices.
    const c = (this.c = {});
    for (const setting of CONTROLLED) c[setting.key] = this.control(setting);
    c.sink = this.select("sink", "Sink design to highlight", SINKS);
    c.window = this.select("window", "Window shown", []);
    c.product = this.select("product", "Product shown", Array.from({ length: 10 }, (_, i) => [i, `product ${i}`]));

    // The defaults, as the first run will show them: the thumbs where they stand and the readouts
    // as the settings table writes them, before the engine's module (which formats every other
    // value) has loaded.
    for (const setting of CONTROLLED) {
      const control = c[setting.key];
      const value = base[setting.key];
      if (!control.values) {
        control.set(value);
      } else if (value !== null) {
        control.exact = value;
        control.input.value = String(nearest(control.values, value));
        const readout = setting.key === "crash_at_ms"
          ? `${setting.default_readout} (+${Math.round((value - this.startMs) / 1000)} s)`
          : setting.key === "backpressure_ms" && value === 0 ? "none" : setting.default_readout;
        if (readout) control.row.querySelector("output").textContent = readout;
      }
    }
    const main = el("div", { class: "controls" }, ...MAIN_SETTINGS.map((s) => c[s.key].row));
    this.advanced = el("details", { class: "advanced" }, el("summary", {}, "More settings"),
      el("div", { class: "controls" }, c.sink.row, ...ADVANCED_SETTINGS.map((s) => c[s.key].row), c.window.row, c.product.row));
    this.scenario = this.select("scenario", "Scenario", Object.entries(SCENARIOS).map(([k, p]) => [k, p.label]));
    this.reset = el("button", { type: "button", "data-action": "reset" }, "Reset to defaults");
    this.play = el("button", { type: "button", "data-action": "play", "aria-pressed": "false" }, "Play");
    this.speed = this.select("speed", "Speed", [[5, "5×"], [10, "10×"], [30, "30×"], [60, "60×"]]);
    this.speed.set(10);
    this.actions = el("div", { class: "actions" }, this.scenario.row, this.reset);
    this.mainControls = main;

    const figures = el("ul", { class: "figures", "aria-label": "Headline figures" });
    this.pinnedFigures = {};
    this.figureLabels = {};
    const figure = (key, label) => {
      const value = el("span", { class: "value", "data-figure": key });
      const pinned = el("span", { class: "pinned", "data-figure-a": key, hidden: "" });
      const name = (this.figureLabels[key] = el("span", { class: "label" }, label));
      figures.append(el("li", {}, value, name, pinned));
      this.pinnedFigures[key] = pinned;
      return value;
    };
    this.f = {
      // What this crash replayed, then what a crash at the worst moments of the cycle would.
      replayed_events: figure("replayed_events", "replayed after this crash"),
      interval_replay_events: figure("interval_replay_events", intervalReplayLabel(false)),
      worst_case_replay_events: figure("worst_case_replay_events", "worst-case replay"),
      recovery_s: figure("recovery_s", "crash to caught up"),
      store_write_bytes_per_min: figure("store_write_bytes_per_min", "written to the store"),
      pause_overhead: figure("pause_overhead", "time paused"),
    };
    this.dupes = {};
    for (const [key, name] of [["append_only", "append-only"], ["upsert", "upsert"], ["transactional", "transactional"], ["dedupe_view", "dedupe view"]]) {
      this.dupes[key] = figure(`${key}.duplicate_rows`, `duplicate rows, ${name}`);
    }
    this.warnings = el("div", { class: "warnings", role: "status", "aria-live": "polite" });
    this.pinButton = el("button", { type: "button", "data-action": "pin" }, "Pin these settings as A");
    this.unpinButton = el("button", { type: "button", "data-action": "unpin", hidden: "" }, "Stop comparing");
    this.compareStatus = el("span", { class: "compare-status", "data-compare": "status" },
      "Pin the current settings, then change them: the charts and figures show A and B side by side.");
    this.compareBar = el("div", { class: "compare" }, this.pinButton, this.unpinButton, this.compareStatus);
    this.exportPanel = this.buildExport();
    this.charts = {};
    this.axes = {};
    const chartList = el("div", { class: "charts" });
    for (const [name, title] of CHARTS) {
      const canvas = el("canvas", { class: "chart", "data-chart": name, role: "img", "aria-label": title });
      const summary = el("p", { class: "alt-summary" });
      // The data table scrolls inside its box, so it takes keyboard focus to be scrolled.
      const table = el("table", { class: "data", tabindex: "0", "aria-label": `${title}: data` });
      const details = el("details", { class: "alt" }, el("summary", {}, `${title}: summary and data`), summary, table);
      // Until the world is prepared, the pending fillAlternatives() fills it.
      details.addEventListener("toggle", () => details.open && this.lab?.prepare_world(PREPARE_SLICE_MS) && this.fillAlternative(name));
      const figure = el("figure", { class: "chart-figure" }, canvas, details);
      if (name === "pipeline") {
        figure.classList.add("pipeline-figure");
        figure.insertBefore(this.buildCursorBar(), details);
        // The page's picture of this view in the lesson's default scenario (see firstPicture, and
        // docs/embedding.md, "A picture before the engine loads"), over the canvas until the
        // engine has drawn it.
        this.firstPictureSlot = el("slot", { name: "first-picture", class: "first-picture" });
        figure.prepend(this.firstPictureSlot);
      } else {
        chartList.append(figure);
      }
      if (TIME_CHARTS.includes(name) || name === "pipeline") this.scrubbable(name, canvas);
      this.charts[name] = { canvas, summary, table, details, figure };
    }
    this.figuresList = figures;
    // The scenario time where the pipeline view first stands with a crash: at the crash.
    const crash = SETTINGS_BY_KEY.crash_at_ms;
    if (base.crash_at_ms !== null && crash.default_readout) {
      this.cursorInput.max = String(base.horizon_ms);
      this.cursorInput.value = String(base.crash_at_ms - base.start_time_ms);
      this.cursorOut.textContent = crash.default_readout;
    }
    // Its rows stack on a phone (CSS grid): the roles keep it a table to assistive technology.
    this.crashTable = el("table", { class: "crash-table", "data-table": "crash", role: "table" });
    this.error = el("p", { class: "error", role: "alert" });
    // A bar the compositor moves (a transform), not a native <progress> the page repaints every
    // frame: repainting that beside large canvases made the frames of a long run stall.
    this.progressFill = el("span", { class: "fill" });
    this.progressBar = el("div", { class: "running", role: "progressbar", "aria-valuemin": "0", "aria-valuemax": "100", "aria-valuenow": "0", hidden: "", "aria-label": "Simulating" }, this.progressFill);
    this.exercisePanel = el("section", { class: "exercise", hidden: "" });

    // A page may have written the first screen into its HTML (a declarative shadow root, see
    // docs/architecture.md, "The first screen"): its styles (a copy of checkpoint-lab.css, or a
    // link to it, loaded already) are kept, and the rest of it gives way to this view in the same
    // task, so nothing moves or flashes.
    const href = new URL("./checkpoint-lab.css", import.meta.url).href;
    const written = this.shadow.querySelector("style[data-styles=checkpoint-lab]")
      ?? [...this.shadow.querySelectorAll("link[rel=stylesheet]")].find((link) => link.href === href);
    const css = written ?? el("link", { rel: "stylesheet", href });
    // Charts are drawn once the styles have arrived: before that a canvas has no CSS size, and
    // sizing its backing store from its own box would grow it at every draw.
    this.stylesReady = Boolean(written?.sheet);
    let styled;
    /// Resolves once the styles are in.
    this.styled = this.stylesReady ? Promise.resolve() : new Promise((resolve) => { styled = resolve; });
    const stylesArrived = () => {
      if (this.stylesReady) return;
      this.stylesReady = true;
      styled();
      // Sizes seen before the styles are stale: measure again, draw, and count it the first picture.
      this.canvasSizes.clear();
      if (this.summary && this.lab) this.drawChartsInTasks(true);
    };
    css.addEventListener("load", stylesArrived);
    css.addEventListener("error", stylesArrived);
    this.crashHeading = el("h3", {}, "A crash, second by second");
    this.chartsHeading = el("h3", {}, "Charts");
    // The first screen: the main sliders, the headline figures and the pipeline at the cursor.
    this.root = el("div", { class: "lab" },
      this.exercisePanel, main, this.error, this.progressBar, figures, this.charts.pipeline.figure,
      this.advanced, this.actions, this.compareBar, this.warnings,
      this.crashHeading, this.crashTable,
      this.chartsHeading, chartList, this.exportPanel);
    // Until the engine's module has loaded (attach), the view shows the lesson's first screen
    // without answering input.
    this.root.inert = true;
    this.root.setAttribute("aria-busy", "true");
    for (const node of [...this.shadow.childNodes]) if (node !== written) node.remove();
    // The written stylesheet stays where it is: moved, it would be loaded and applied again.
    this.shadow.append(...(written ? [] : [css]), this.root);

    for (const control of Object.values(c)) {
      control.input.addEventListener(control.input.tagName === "SELECT" ? "change" : "input", () => this.schedule("input"));
    }
    this.scenario.input.addEventListener("change", () => { this.applySettings(SCENARIOS[this.scenario.get()].settings); this.update("input"); });
    this.reset.addEventListener("click", () => { this.scenario.set("lesson"); this.applySettings({}); this.cursorS = undefined; this.update("input"); });
    this.reducedMotion = window.matchMedia("(prefers-reduced-motion: reduce)");
    this.play.addEventListener("click", () => this.togglePlay());
    this.pinButton.addEventListener("click", () => this.pin());
    this.unpinButton.addEventListener("click", () => this.unpin());
    // Each canvas's size in CSS pixels, kept by a ResizeObserver so drawing never asks for
    // layout. A new size only needs that chart redrawn (at the new size), not a new run.
    this.canvasSizes = new Map();
    this.resizeObserver = new ResizeObserver((entries) => {
      const resized = [];
      for (const entry of entries) {
        const box = entry.borderBoxSize?.[0];
        const size = box ? { width: box.inlineSize, height: box.blockSize } : entry.target.getBoundingClientRect();
        this.canvasSizes.set(entry.target, { width: size.width, height: size.height });
        resized.push(entry.target.dataset.chart);
      }
      // After layout, before paint: the resized charts are drawn in this frame.
      if (this.summary && this.lab) this.drawCharts(resized);
    });
    for (const { canvas } of Object.values(this.charts)) this.resizeObserver.observe(canvas);
    // Which canvases are near the viewport: during a drag only those are redrawn (see
    // OUT_OF_VIEW_MARGIN). A canvas not reported yet counts as near, and so does every canvas
    // where the browser has no IntersectionObserver.
    this.nearView = new Map();
    this.outOfView = new Set();
    this.viewObserver = globalThis.IntersectionObserver && new IntersectionObserver((entries) => {
      const near = [];
      for (const entry of entries) {
        this.nearView.set(entry.target, entry.isIntersecting);
        if (entry.isIntersecting && this.outOfView.has(entry.target.dataset.chart)) near.push(entry.target.dataset.chart);
      }
      if (near.length && this.summary && this.lab) this.drawCharts(near);
    }, { rootMargin: OUT_OF_VIEW_MARGIN });
    for (const { canvas } of Object.values(this.charts)) this.viewObserver?.observe(canvas);
    // What each chart was last drawn from (see drawKey): a chart whose inputs did not change is not redrawn.
    this.drawnKeys = {};
    this.dirty = new Set();
    this.runId = 0;
    this.pinId = 0;
    this.darkQuery = window.matchMedia("(prefers-color-scheme: dark)");
    this.onScheme = () => this.requestDraw(CHARTS.map(([name]) => name));
    this.darkQuery.addEventListener("change", this.onScheme);
    this.root.classList.toggle("dark", this.theme());
  }

  // ----- the cursor: a time in the scenario the pipeline view shows and the time charts mark -----
  /// The "Scenario time" control, the event and play buttons, the speed, and the spoken description.
  buildCursorBar() {
    const id = `${this.id}-cursor`;
    this.cursorInput = el("input", { id, type: "range", min: "0", max: "600000", step: "100", value: "0", "data-control": "cursor" });
    this.cursorOut = el("output", { for: id, class: "readout", "data-cursor": "clock" });
    this.previousEvent = el("button", { type: "button", "data-action": "previous-event", title: "Previous event" }, "◀ Event");
    this.nextEvent = el("button", { type: "button", "data-action": "next-event", title: "Next event" }, "Event ▶");
    this.previousEvent.setAttribute("aria-label", "Previous event");
    this.nextEvent.setAttribute("aria-label", "Next event");
    this.description = el("p", { class: "pipeline-description", "data-pipeline-description": "", "aria-live": "polite" });
    // Not a ".control": the `controls` option chooses settings; the cursor belongs to the pipeline view.
    const time = el("div", { class: "cursor-control" }, el("label", { for: id }, "Scenario time"), this.cursorInput, this.cursorOut);
    this.speed.row.className = "cursor-speed";
    const buttons = el("div", { class: "cursor-buttons" }, this.previousEvent, this.play, this.nextEvent, this.speed.row);
    this.cursorInput.addEventListener("input", () => this.setCursor(Number(this.cursorInput.value)));
    this.previousEvent.addEventListener("click", () => this.stepEvent(-1));
    this.nextEvent.addEventListener("click", () => this.stepEvent(1));
    this.cursorBar = el("div", { class: "cursor-bar", role: "group", "aria-label": "Scenario time" }, time, buttons);
    return el("div", {}, this.cursorBar, this.description);
  }

  /// Milliseconds since the scenario start where the cursor stands (before the student moves it:
  /// the crash, or the first barrier and a second).
  cursorMs() {
    if (this.cursorS !== undefined) return Math.round(this.cursorS * 1000);
    return this.summary ? this.lab.default_cursor() : 0;
  }

  /// Moves the cursor to `ms` since the scenario start: the pipeline view, the time charts' marks,
  /// the control and (throttled) the description follow.
  setCursor(ms) {
    if (!this.summary || !Number.isFinite(ms)) return;
    const clamped = Math.min(Math.max(0, ms), this.horizonMs);
    this.cursorS = clamped / 1000;
    this.showCursor();
    this.requestDraw(["pipeline", ...TIME_CHARTS]);
    this.host.dispatchEvent(new CustomEvent("checkpointlab-cursor", {
      bubbles: true, composed: true, detail: { ms: clamped, at: clock(this.startMs + clamped) },
    }));
  }

  /// Reads a time ("10:00:58" or ms since the scenario start) and moves the cursor there; throws an
  /// Error naming `cursor` when it is not a time of this run.
  seek(time) {
    if (!this.summary) throw new Error("cursor: the lab has not run yet");
    this.setCursor(this.lab.cursor(time));
    this.flushDraw();
  }

  /// The control, its readout and the description at the cursor.
  showCursor() {
    const ms = this.cursorMs();
    this.cursorInput.max = String(this.horizonMs);
    this.cursorInput.value = String(ms);
    const text = clock(this.startMs + ms);
    this.cursorOut.textContent = text;
    this.cursorInput.setAttribute("aria-valuetext", text);
    this.describe();
  }

  /// Updates the spoken description at most every DESCRIBE_EVERY_MS while the cursor moves, and
  /// once more when it stops, so a screen reader is not flooded.
  describe() {
    if (this.describeTimer) {
      this.describePending = true;
      return;
    }
    this.writeDescription();
    this.describeTimer = setTimeout(() => {
      this.describeTimer = undefined;
      if (this.describePending) {
        this.describePending = false;
        this.describe();
      }
    }, DESCRIBE_EVERY_MS);
  }

  writeDescription() {
    if (!this.lab || !this.summary) return;
    const ms = this.cursorMs();
    const world = this.lab.world(ms);
    this.description.textContent = world.description;
    this.description.dataset.cursorMs = String(ms);
    this.description.dataset.status = world.status;
  }

  /// Jumps to the previous (-1) or next (+1) event: barrier, completed checkpoint, crash, detection, restore, caught up.
  stepEvent(direction) {
    if (!this.summary) return;
    const now = this.cursorMs();
    const instants = this.instants ??= this.lab.key_instants();
    const target = direction > 0 ? instants.find((t) => t > now + 0.5) : instants.findLast((t) => t < now - 0.5);
    if (target !== undefined) this.setCursor(target);
  }

  /// A chart over the scenario clock: clicking, dragging or hovering moves the cursor there (with
  /// a small readout of the values at that time); the keyboard moves it too.
  scrubbable(name, canvas) {
    canvas.setAttribute("tabindex", "0");
    const timeAt = (event) => {
      const axis = this.axes[name];
      if (!axis) return undefined;
      const rect = canvas.getBoundingClientRect();
      const x = (event.clientX - rect.left) * (canvas.width / Math.max(1, rect.width));
      if (x < axis.x0 - 2 || x > axis.x1 + 2) return undefined;
      const s = axis.from_s + ((x - axis.x0) / Math.max(1, axis.x1 - axis.x0)) * (axis.to_s - axis.from_s);
      return Math.round(Math.min(Math.max(s, axis.from_s), axis.to_s) * 1000);
    };
    if (name !== "pipeline") {
      const readout = el("span", { class: "hover-readout", "data-readout": name, hidden: "" });
      // At the end of the chart's figure, so the canvas stays next to its text alternative.
      canvas.parentNode.append(readout);
      const show = (ms, event) => {
        const world = this.lab.world(ms);
        readout.textContent = `${world.at.at} · ${world.status} · lag ${count(world.lag_events)} · offset ${count(world.position)}`;
        readout.removeAttribute("hidden");
        const rect = canvas.getBoundingClientRect();
        const x = event ? event.clientX - rect.left : rect.width / 2;
        readout.style.left = `${Math.min(Math.max(0, x + 8), Math.max(0, rect.width - readout.offsetWidth))}px`;
      };
      // On the lag chart the crash marker can be dragged: the crash time follows it, and the
      // run starts again when it is let go.
      let draggingCrash = false;
      const nearCrash = (event) => {
        const axis = this.axes[name];
        const crash = this.crashNone ? undefined : this.c.crash_at_ms.get();
        if (name !== "replay" || !axis || crash === undefined) return false;
        const rect = canvas.getBoundingClientRect();
        const ratio = canvas.width / Math.max(1, rect.width);
        const crashX = axis.x0 + (((crash - this.startMs) / 1000 - axis.from_s) / (axis.to_s - axis.from_s)) * (axis.x1 - axis.x0);
        return Math.abs((event.clientX - rect.left) * ratio - crashX) <= 6 * ratio;
      };
      canvas.addEventListener("pointerdown", (event) => {
        const ms = timeAt(event);
        if (ms === undefined) return;
        canvas.setPointerCapture?.(event.pointerId);
        if (nearCrash(event)) {
          draggingCrash = true;
          return;
        }
        this.setCursor(ms);
        show(ms, event);
      });
      canvas.addEventListener("pointermove", (event) => {
        const ms = timeAt(event);
        if (ms === undefined || !this.summary) return;
        canvas.style.cursor = draggingCrash || nearCrash(event) ? "ew-resize" : "";
        if (draggingCrash) {
          readout.textContent = `crash at ${clock(this.startMs + Math.round(ms / 1000) * 1000)}`;
          readout.removeAttribute("hidden");
          return;
        }
        this.setCursor(ms);
        show(ms, event);
      });
      canvas.addEventListener("pointerup", (event) => {
        if (!draggingCrash) return;
        draggingCrash = false;
        const ms = timeAt(event);
        if (ms === undefined) return;
        const steps = this.c.crash_at_ms.values;
        const wanted = this.startMs + Math.round(ms / 1000) * 1000;
        this.c.crash_at_ms.set(Math.min(Math.max(wanted, steps[0]), steps[steps.length - 1]));
        this.crashNone = false;
        this.schedule("input");
      });
      canvas.addEventListener("pointerleave", () => readout.setAttribute("hidden", ""));
      canvas.addEventListener("focus", () => this.summary && show(this.cursorMs()));
      canvas.addEventListener("blur", () => readout.setAttribute("hidden", ""));
      this.readouts = { ...(this.readouts || {}), [name]: show };
    }
    canvas.addEventListener("keydown", (event) => {
      if (!this.summary) return;
      const step = event.shiftKey ? 10000 : 1000;
      const now = this.cursorMs();
      const moves = {
        ArrowLeft: () => this.setCursor(now - step), ArrowRight: () => this.setCursor(now + step),
        Home: () => this.setCursor(0), End: () => this.setCursor(this.horizonMs),
        PageUp: () => this.stepEvent(-1), PageDown: () => this.stepEvent(1), "[": () => this.stepEvent(-1), "]": () => this.stepEvent(1),
      };
      if (!moves[event.key]) return;
      event.preventDefault();
      moves[event.key]();
      if (this.readouts?.[name]) this.readouts[name](this.cursorMs());
    });
  }

  /// Shows only the named views (charts, "figures", "crash-table"); all of them when `list` is undefined.
  showViews(list) {
    const shown = new Set(list == null ? ALL_VIEWS : list);
    const toggle = (node, on) => (on ? node.removeAttribute("hidden") : node.setAttribute("hidden", ""));
    for (const [name] of CHARTS) toggle(this.charts[name].figure, shown.has(name));
    toggle(this.figuresList, shown.has("figures"));
    toggle(this.warnings, shown.has("figures"));
    toggle(this.crashHeading, shown.has("crash-table"));
    toggle(this.crashTable, shown.has("crash-table"));
    const others = CHARTS.some(([name]) => name !== "pipeline" && shown.has(name));
    toggle(this.chartsHeading, others && list == null);
    toggle(this.exportPanel, list == null);
    this.root.classList.toggle("inline", list != null);
    this.viewsShown = shown;
  }

  /// The windows the sink chart can show: every window the horizon touches.
  fillWindows(config) {
    const select = this.c.window;
    const chosen = select.get();
    const options = [];
    for (let w = Math.floor(config.start_time_ms / config.window_ms) * config.window_ms; w < config.start_time_ms + config.horizon_ms; w += config.window_ms) {
      options.push(el("option", { value: String(w) }, clock(w)));
    }
    select.input.replaceChildren(...options);
    if (options.some((o) => o.value === chosen)) select.set(chosen);
  }

  // ----- settings -----
  /// The controlled settings, exactly as given (never rounded to a slider step).
  settings() {
    const out = {};
    for (const setting of CONTROLLED) out[setting.key] = this.c[setting.key].get();
    if (this.crashNone) out.crash_at_ms = null;
    return out;
  }

  /// Sets the controls from config values (missing keys take the defaults). The crash slider and
  /// the window list follow the configured start and horizon.
  applySettings(values) {
    const { c } = this;
    const v = { ...this.base, ...values };
    this.startMs = v.start_time_ms;
    this.horizonMs = v.horizon_ms;
    c.crash_at_ms.steps(this.horizonSteps(v));
    if (this.windowsFor !== `${v.start_time_ms} ${v.horizon_ms} ${v.window_ms}`) {
      this.windowsFor = `${v.start_time_ms} ${v.horizon_ms} ${v.window_ms}`;
      this.fillWindows(v);
    }
    this.crashNone = v.crash_at_ms === null;
    for (const setting of CONTROLLED) {
      if (setting.key === "crash_at_ms" && this.crashNone) continue;
      let value = v[setting.key];
      // A choice may be given in the command line's spelling ("micro-batch"); the control holds the config's.
      if (setting.unit.kind === "choice") value = setting.unit.choices.find((c) => c.flag_value === value)?.value ?? value;
      c[setting.key].set(value);
    }
    const controlled = new Set(CONTROLLED.map((s) => s.key));
    this.extra = Object.fromEntries(Object.entries(values).filter(([k]) => !controlled.has(k)));
  }

  /// Shows only the named controls (["interval", "state-size", "crash-at", "advanced", "actions"]).
  showControls(list) {
    const shown = new Set(list == null ? ALL_CONTROLS : list);
    const toggle = (node, on) => (on ? node.removeAttribute("hidden") : node.setAttribute("hidden", ""));
    toggle(this.compareBar, shown.has("compare"));
    for (const setting of MAIN_SETTINGS) toggle(this.c[setting.key].row, shown.has(setting.attribute));
    toggle(this.advanced, shown.has("advanced"));
    toggle(this.actions, shown.has("actions"));
  }

  // ----- drawing -----
  config() {
    return { ...this.settings(), ...(this.extra || {}) };
  }

  theme() {
    const t = this.options.theme || this.host.getAttribute("theme") || "auto";
    return t === "dark" || (t === "auto" && this.darkQuery.matches);
  }

  /// A canvas's size in CSS pixels: the ResizeObserver's, measured once before it first reports.
  canvasSize(canvas) {
    let size = this.canvasSizes.get(canvas);
    if (!size) {
      const rect = canvas.getBoundingClientRect();
      size = { width: rect.width, height: rect.height };
      this.canvasSizes.set(canvas, size);
    }
    return size;
  }

  /// Redraws the named charts in the next frame: however many cursor moves, resizes or scheme
  /// changes arrive before it, each chart is drawn once, with the latest values.
  requestDraw(names) {
    for (const name of names) this.dirty.add(name);
    if (this.drawFrame) return;
    this.drawFrame = requestAnimationFrame(() => {
      this.drawFrame = undefined;
      const dirty = [...this.dirty];
      this.dirty.clear();
      if (this.summary && this.lab) this.drawCharts(dirty);
    });
  }

  /// Draws at once what waits for the next frame: after a seek or a pause the charts show the
  /// cursor where it stopped, before the call returns.
  flushDraw() {
    if (!this.drawFrame) return;
    cancelAnimationFrame(this.drawFrame);
    this.drawFrame = undefined;
    const dirty = [...this.dirty];
    this.dirty.clear();
    if (this.summary && this.lab) this.drawCharts(dirty);
  }

  /// Draws the named charts whose inputs changed since they were last drawn: the run, the
  /// pinned run, the theme, the canvas size and (except on the trade-off chart) the cursor.
  /// Charts out of view wait while the student changes something, unless `evenOutOfView`.
  drawCharts(names = CHARTS.map(([name]) => name), evenOutOfView = false) {
    if (!this.stylesReady) {
      for (const name of names) this.dirty.add(name);
      return;
    }
    const dark = this.theme();
    this.root.classList.toggle("dark", dark);
    const cursorS = this.summary ? this.cursorMs() / 1000 : undefined;
    const dpr = window.devicePixelRatio || 1;
    for (const name of names) {
      this.dirty.delete(name);
      const { canvas } = this.charts[name];
      if (!canvas.isConnected) continue;
      const size = this.canvasSize(canvas);
      if (size.width === 0) continue;
      // Out of view while the student changes something: drawn when the changes pause.
      if (this.nearView.get(canvas) === false && this.firstDrawnAt !== undefined && !evenOutOfView) {
        this.outOfView.add(name);
        continue;
      }
      this.outOfView.delete(name);
      const [w, h] = backingSize(size, dpr);
      const chartCursor = name === "tradeoff" ? undefined : cursorS;
      // The trade-off chart shows every interval for these settings whenever the crash comes:
      // moving only the crash time leaves it as drawn.
      const run = name === "tradeoff" ? this.tradeoffInputs : this.runId;
      const key = `${run} ${this.pinId} ${dark} ${w}x${h} ${dpr} ${chartCursor}`;
      if (this.drawnKeys[name] === key) continue;
      if (canvas.width !== w || canvas.height !== h) { canvas.width = w; canvas.height = h; }
      const axis = this.lab.draw(name, canvas, dark, dpr, chartCursor);
      if (axis) this.axes[name] = axis;
      if (name === "pipeline") this.dropFirstPicture();
      this.drawnKeys[name] = key;
      this.firstChartAt ??= performance.now();
    }
    if (this.outOfView.size && !evenOutOfView) this.drawOutOfViewLater();
  }

  /// Draws the charts left out of view, after OUT_OF_VIEW_SETTLE_MS without a change (each
  /// change puts it off again), one chart per task.
  drawOutOfViewLater() {
    clearTimeout(this.outOfViewTimer);
    this.outOfViewTimer = setTimeout(() => this.drawOutOfViewShowingErrors(), OUT_OF_VIEW_SETTLE_MS);
  }

  /// drawOutOfView(1) in a task of its own: a chart that fails to draw says so in the view.
  drawOutOfViewShowingErrors() {
    try {
      this.drawOutOfView(1);
    } catch (e) {
      this.error.textContent = String(e.message || e);
    }
  }

  /// Draws up to `count` of the charts left out of view (all by default), and the rest later.
  drawOutOfView(count = Infinity) {
    clearTimeout(this.outOfViewTimer);
    if (!this.summary || !this.lab) return;
    const names = [...this.outOfView].slice(0, count);
    for (const name of names) this.outOfView.delete(name);
    this.drawCharts(names, true);
    if (this.outOfView.size) this.outOfViewTimer = setTimeout(() => this.drawOutOfViewShowingErrors(), 0);
  }

  /// Fills the text alternatives a little after the charts are drawn (each change puts it off
  /// again): they describe what the charts show.
  fillAlternativesLater() {
    clearTimeout(this.altTimer);
    this.altTimer = setTimeout(() => this.fillAlternatives(), 250);
  }

  /// Fills the named charts' text alternatives, each in a task of its own, once the world can
  /// answer at any instant (the pipeline view's table reads it at each key instant): made a slice
  /// at a time first, so a heavy run's sink tables are never counted in one long task.
  fillAlternatives(names = CHARTS.map(([name]) => name)) {
    if (!this.lab) return;
    if (!this.lab.prepare_world(PREPARE_SLICE_MS)) {
      this.altTimer = setTimeout(() => this.fillAlternatives(names), 0);
      return;
    }
    const [name, ...rest] = names;
    if (name) this.fillAlternative(name);
    if (rest.length) this.altTimer = setTimeout(() => this.fillAlternatives(rest), 0);
  }

  fillAlternative(name) {
    const { summary, table, details, canvas } = this.charts[name];
    const alt = this.lab.text_alternative(name);
    canvas.setAttribute("aria-label", alt.summary);
    if (!details.open) return;
    summary.textContent = alt.summary;
    const head = el("tr", {}, ...alt.columns.map((col) => el("th", { scope: "col" }, col)));
    const rows = alt.rows.map((r) => el("tr", {}, ...r.map((cell) => el("td", {}, cell))));
    table.replaceChildren(el("thead", {}, head), el("tbody", {}, ...rows));
  }

  /// Names and enables the controls that mean something in the chosen restart design.
  showMode() {
    const batches = this.c.mode.get() === "micro_batch";
    for (const setting of CONTROLLED) {
      if (setting.label_micro_batch) setText(this.c[setting.key].labelEl, batches ? setting.label_micro_batch : setting.label);
    }
    setText(this.figureLabels.interval_replay_events, intervalReplayLabel(batches));
    this.c.alignment.input.disabled = batches;
    this.c.backpressure_ms.input.disabled = batches;
    // Spark's state stores write what changed in each batch, whichever provider; its sinks have no
    // transactions.
    const providers = { full: "HDFS-backed (delta files)", incremental: "RocksDB (changelog)" };
    for (const option of this.c.snapshots.input.options) {
      const choice = SETTINGS_BY_KEY.snapshots.unit.choices.find((c) => c.value === option.value);
      setText(option, batches ? providers[option.value] : choice.label);
    }
    this.c.isolation_level.input.disabled = batches;
    this.c.transaction_timeout_ms.input.disabled = batches;
    // A task's failure reaches the JobManager at once: heartbeats play no part. Spark has neither
    // heartbeat-timed TaskManagers nor a restart strategy: its supervisor restarts a stopped
    // query, after the time it takes to notice, which the heartbeat timeout's control sets there.
    this.c.failure.input.disabled = batches;
    this.c.restart_strategy.input.disabled = batches;
    this.c.heartbeat_timeout_ms.input.disabled = !batches && this.c.failure.get() === "task";
    // The checkpoint timeline is the batch timeline in micro-batch mode: its text alternative's
    // names say so too (the canvas's own label is the alternative's summary, see fillAlternative).
    const timeline = this.charts.checkpoints;
    if (timeline) {
      const title = batches ? "Batch timeline" : CHARTS.find(([name]) => name === "checkpoints")[1];
      setText(timeline.details.querySelector("summary"), `${title}: summary and data`);
      if (timeline.table.getAttribute("aria-label") !== `${title}: data`) timeline.table.setAttribute("aria-label", `${title}: data`);
    }
    const transactional = batches ? "idempotent by batch id" : "transactional";
    setText(this.figureLabels["transactional.duplicate_rows"], `duplicate rows, ${transactional}`);
    const option = this.c.sink.input.querySelector('option[value="transactional"]');
    if (option) setText(option, transactional);
  }

  showFigures(s) {
    const { f, dupes } = this;
    setText(f.replayed_events, count(s.replayed_events));
    setText(f.interval_replay_events, count(s.interval_replay_events));
    setText(f.worst_case_replay_events, count(s.worst_case_replay_events));
    setText(f.recovery_s, s.recovery_s == null ? "never" : seconds(s.recovery_s));
    setText(f.store_write_bytes_per_min, `${bytes(s.store_write_bytes_per_min)}/min`);
    setText(f.pause_overhead, `${(s.pause_overhead * 100).toFixed(2)}%`);
    for (const key of Object.keys(dupes)) setText(dupes[key], count(s.duplicate_rows[key]));
    if (this.warnings.textContent !== s.warnings.join("")) {
      this.warnings.replaceChildren(...s.warnings.map((w) => el("p", { class: "warning" }, w)));
    }
    this.showComparison(s);
  }

  // ----- comparing two settings -----
  pin() {
    if (!this.summary) return;
    this.lab.pin();
    this.pinId++;
    this.pinned = this.lab.pinned();
    this.pinButton.textContent = "Pin these settings as A instead";
    this.unpinButton.removeAttribute("hidden");
    this.showComparison(this.summary);
    this.drawCharts();
  }

  unpin() {
    this.lab.unpin();
    this.pinId++;
    this.pinned = undefined;
    this.pinButton.textContent = "Pin these settings as A";
    this.unpinButton.setAttribute("hidden", "");
    this.showComparison(this.summary);
    this.drawCharts();
  }

  /// Under each headline figure: A's value and B − A, while a comparison is on.
  showComparison(b) {
    const pinned = this.pinned;
    for (const node of Object.values(this.pinnedFigures)) node.toggleAttribute("hidden", !pinned);
    if (!pinned) {
      this.compareStatus.textContent = "Pin the current settings, then change them: the charts and figures show A and B side by side.";
      return;
    }
    const a = pinned.summary;
    this.compareStatus.textContent = `A (dashed grey): ${pinned.label}. B: the settings now.`;
    const signed = (d, show) => (d > 0 ? `+${show(d)}` : d < 0 ? `−${show(-d)}` : "±0");
    const rows = [
      ["replayed_events", a.replayed_events, b.replayed_events, count],
      ["interval_replay_events", a.interval_replay_events, b.interval_replay_events, count],
      ["worst_case_replay_events", a.worst_case_replay_events, b.worst_case_replay_events, count],
      ["recovery_s", a.recovery_s, b.recovery_s, seconds],
      ["store_write_bytes_per_min", a.store_write_bytes_per_min, b.store_write_bytes_per_min, (v) => `${bytes(v)}/min`],
      ["pause_overhead", a.pause_overhead, b.pause_overhead, (v) => `${(v * 100).toFixed(2)}%`],
    ];
    for (const key of ["append_only", "upsert", "transactional", "dedupe_view"]) {
      rows.push([`${key}.duplicate_rows`, a.duplicate_rows[key], b.duplicate_rows[key], count]);
    }
    for (const [key, va, vb, show] of rows) {
      const shownA = va == null ? "never" : show(va);
      const diff = va == null || vb == null ? (va === vb ? "±0" : "n/a") : signed(vb - va, show);
      this.pinnedFigures[key].textContent = `A ${shownA} · B−A ${diff}`;
    }
  }

  // ----- export to real engine settings -----
  buildExport() {
    const block = (name, title) => {
      const pre = el("pre", { class: "export-text", "data-export": name, tabindex: "0" });
      const copy = el("button", { type: "button", "data-copy": name }, `Copy the ${title} settings`);
      const status = el("span", { class: "copy-status", role: "status" });
      copy.addEventListener("click", () => this.copy(pre, status));
      return { pre, section: el("div", { class: "export-block" }, el("h4", {}, title), pre, el("div", { class: "buttons" }, copy, status)) };
    };
    this.exportFlink = block("flink", "Flink");
    this.exportSpark = block("spark", "Spark");
    const panel = el("details", { class: "export", "data-panel": "export" },
      el("summary", {}, "Use these settings in Flink or Spark"),
      el("p", {}, "The settings above as a Flink configuration and as a Spark Structured Streaming query."),
      this.exportFlink.section, this.exportSpark.section);
    // Written when opened, and after each run while open: a closed panel costs a run nothing.
    panel.addEventListener("toggle", () => panel.open && this.summary && this.lab && this.showExport());
    return panel;
  }

  showExport() {
    if (!this.exportPanel.open) return;
    const text = this.lab.export();
    this.exportFlink.pre.textContent = text.flink;
    this.exportSpark.pre.textContent = text.spark;
  }

  async copy(pre, status) {
    const text = pre.textContent;
    try {
      await navigator.clipboard.writeText(text);
      status.textContent = "Copied.";
    } catch {
      // No clipboard permission: select the text so Ctrl+C copies it.
      const range = document.createRange();
      range.selectNodeContents(pre);
      const selection = this.shadow.getSelection?.() || document.getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
      status.textContent = "Selected: press Ctrl+C (⌘C) to copy.";
    }
  }

  showCrashTable() {
    const rows = this.lab.crash_table();
    // Moving the interval often leaves the crash's story as it was: then the table stays.
    const shown = JSON.stringify(rows);
    if (shown === this.crashTableShown && this.crashTable.isConnected) return;
    this.crashTableShown = shown;
    const th = (text) => el("th", { scope: "col", role: "columnheader" }, text);
    const td = (text, attrs = {}) => el("td", { role: "cell", ...attrs }, text);
    const head = el("tr", { role: "row" }, th("time"), th("offset"), th("what happens"));
    const body = rows.map((r) => el("tr", { role: "row" }, td(r.at.at), td(r.offset == null ? "" : count(r.offset), { class: "num" }), td(r.what)));
    this.crashTable.replaceChildren(el("thead", { role: "rowgroup" }, head), el("tbody", { role: "rowgroup" }, ...body));
  }

  /// Runs `config` in slices of at most FRAME_BUDGET_MS per frame, so no task blocks the page;
  /// a newer run drops this one. Throws on bad input before anything changes.
  startRun(config, cause, started = performance.now()) {
    this.lab.select(this.c.sink.get(), Number(this.c.window.get()), Number(this.c.product.get()));
    const heavy = this.lab.begin(config) > EVENTS_PER_FRAME;
    const replacing = this.busy;
    let slices = 0;
    const generation = (this.generation = (this.generation || 0) + 1);
    this.busy = true;
    const step = () => {
      if (generation !== this.generation || !this.lab) return;
      let result;
      slices++;
      // The page's first picture, in tasks of their own: the pipeline view where it first stands,
      // from the run stopped there, before the whole first run is ready (the same picture it
      // will draw then).
      if (!this.summary && this.preview !== "drawn" && this.previewStep(config, generation)) {
        slices--;
        yieldToPage().then(step);
        return;
      }
      try {
        result = this.lab.advance(FRAME_BUDGET_MS, this.cursorS);
      } catch (e) {
        this.showReadouts();
        this.error.textContent = String(e.message || e);
        this.busy = false;
        this.settleDrawn(e);
        return;
      }
      if (!result.done) {
        this.showReadouts();
        this.showProgress(result.progress);
        this.ranThisFrame();
        // Before the first picture there is no frame to keep smooth: the next slice follows as
        // soon as the page has had its turn (input, rendering), without waiting for a frame.
        if (this.firstDrawnAt === undefined) {
          yieldToPage().then(step);
          return;
        }
        nextFrameThen(step);
        return;
      }
      this.showProgress(null);
      this.busy = false;
      this.finishRun(result.summary, config, cause, slices > 1);
      this.ranThisFrame();
      this.timings.push(performance.now() - started);
    };
    // The first slice runs at once, so a light run is drawn in the input's own task. A heavy run,
    // or one that replaces a run still going, will take several frames anyway: unless it was
    // already put off to a task of its own (see schedule), its first slice waits for the next
    // frame, like the rest. The very first run waits for a task of its own, after the element
    // has built itself.
    const now = this.firstSliceNow || !(replacing || heavy);
    this.firstSliceNow = false;
    // A run finished in this task shows the controls after its charts (see finishRun): written
    // before, they would make the first chart wait for the styles they change.
    if (!(this.summary && now)) this.showReadouts();
    if (!this.summary) yieldToPage().then(step);
    else if (now) step();
    else {
      this.showProgress(0);
      nextFrameThen(step);
    }
  }

  /// Draws the pipeline view where it first stands with the first chart's module's `draw`, from
  /// a scenario's settings (by its name) and the element's attributes, `sink` (or the default) highlighted:
  /// the picture the lab then draws there, before the lab's module has loaded. The lab's own
  /// first picture (previewStep) is then not needed. Throws what `draw` throws.
  drawFirstChart(draw, scenarioName, attributes, sink) {
    const { canvas, figure } = this.charts.pipeline;
    if (!this.stylesReady || !canvas.isConnected || figure.hidden || this.firstChartAt !== undefined || this.summary) return;
    const size = this.canvasSize(canvas);
    if (size.width === 0) return;
    const dpr = window.devicePixelRatio || 1;
    const dark = this.theme();
    this.root.classList.toggle("dark", dark);
    [canvas.width, canvas.height] = backingSize(size, dpr);
    const drawn = draw(SCENARIOS[scenarioName].settings, attributes, canvas, dark, dpr, sink ?? this.c.sink.get());
    if (!drawn) return;
    this.showFirstChart(drawn, scenarioName, sink, performance.now(), "first-chart");
  }

  /// Marks the first chart drawn at `at` (by the first chart's module in the element, or by the
  /// page's head) and sets the controls and the cursor's readout at the values `drawn` names.
  showFirstChart(drawn, scenarioName, sink, at, by) {
    this.preview = "drawn";
    this.firstChartAt = at;
    this.firstChartBy = by;
    // The controls and the cursor's readout at the values drawn, still inert until the lab has
    // loaded (it sets them again from the same attributes).
    this.scenario.set(scenarioName);
    if (sink) this.c.sink.set(sink);
    this.applySettings(drawn.config);
    this.showReadouts();
    this.cursorInput.max = String(this.horizonMs);
    this.cursorInput.value = String(drawn.cursor_ms);
    this.cursorOut.textContent = clock(this.startMs + drawn.cursor_ms);
  }

  /// One step of the first picture (see startRun): runs the first run up to where the pipeline
  /// view first stands, then, in the next task, draws the view from it. Returns whether it took
  /// a step; none when there is no such picture to draw. A setting the engine refuses is
  /// reported by the whole run, which follows.
  previewStep(config, generation) {
    if (this.preview === "run") {
      this.preview = "drawn";
      // Unless a newer setting came first: its whole run draws the view.
      const current = generation === this.previewGeneration;
      try {
        if (current) this.drawCharts(["pipeline"]);
      } catch {
        // The whole run draws the view again, and reports what fails then.
      }
      this.lab.forget_preview();
      return current;
    }
    this.preview = "drawn";
    this.previewGeneration = generation;
    const pipeline = this.charts.pipeline;
    const moved = this.cursorS !== undefined || this.pendingCursor !== undefined;
    if (!this.stylesReady || moved || !pipeline?.canvas.isConnected || pipeline.figure.hidden) return false;
    try {
      if (!this.lab.preview(config)) return false;
    } catch {
      return false;
    }
    this.preview = "run";
    return true;
  }

  /// The readouts and the labels of the restart design chosen.
  showReadouts() {
    for (const control of Object.values(this.c)) control.show?.();
    this.showMode();
  }

  showProgress(fraction) {
    if (fraction == null) {
      if (!this.progressBar.hasAttribute("hidden")) this.progressBar.setAttribute("hidden", "");
    } else {
      this.progressBar.removeAttribute("hidden");
      this.progressBar.setAttribute("aria-valuenow", String(Math.round(fraction * 100)));
      this.progressFill.style.transform = `scaleX(${fraction})`;
    }
  }

  /// Shows a finished run: figures, charts, the crash table, the change event. After a run that
  /// took several slices (a heavy one) the charts are drawn in tasks of their own.
  finishRun(summary, config, cause, sliced = false) {
    this.summary = summary;
    this.firstRunAt ??= performance.now();
    this.runId++;
    // Charts of an earlier run still being drawn a few at a time: this run's replace them.
    this.drawing = undefined;
    this.tradeoffInputs = JSON.stringify({ ...config, crash_at_ms: undefined });
    this.instants = undefined;
    this.horizonMs = config.horizon_ms ?? this.horizonMs;
    if (this.cursorS !== undefined && this.cursorS * 1000 > this.horizonMs) this.cursorS = this.horizonMs / 1000;
    if (this.pendingCursor !== undefined) {
      const wanted = this.pendingCursor;
      this.pendingCursor = undefined;
      try {
        this.cursorS = this.lab.cursor(wanted) / 1000;
      } catch (e) {
        this.cursorError = String(e.message || e);
      }
    }
    // A run clears the errors of earlier ones, not those that stand: the exercises' module or an
    // exercises-src file that failed to load. Written before the charts, so that one which fails
    // to draw says so.
    setText(this.error, this.cursorError ?? this.exercisesError ?? this.sourceError ?? "");
    const cursorFailed = this.cursorError;
    this.cursorError = undefined;
    clearTimeout(this.altTimer);
    // The charts first, while the page's styles are still clean: a canvas resolves its font
    // against them, so drawing after the figures and the cursor changed would make the browser
    // recompute styles in the middle of drawing, and again when it renders.
    if (sliced || this.firstDrawnAt === undefined) this.drawChartsInTasks(!sliced);
    else this.drawCharts();
    this.showCursor();
    this.showReadouts();
    this.showFigures(summary);
    this.showCrashTable();
    this.showExport();
    if (!this.drawing) this.fillAlternativesLater();
    if (cause) {
      this.host.dispatchEvent(new CustomEvent("checkpointlab-change", { bubbles: true, composed: true, detail: { ...summary, settings: config } }));
    }
    if (!this.drawing) this.firstPicture();
    this.settleDrawn(cursorFailed && new Error(cursorFailed));
  }

  /// Draws every chart, in view or not, one per frame, each after the frame's rendering: a canvas
  /// drawn for the first time at its size gets its buffers at the commit that carries it (in
  /// Chromium without a GPU, about 8 ms for a chart at twice the pixel ratio), so one frame
  /// carrying every chart would make one long task. `firstNow` draws the first chart in this
  /// task. After a heavy run, or the view's first. The view counts as drawn (set(), mount(), the
  /// first picture) once the last one is.
  drawChartsInTasks(firstNow = false) {
    const left = CHARTS.map(([name]) => name);
    // A newer run, or a newer call (the styles arrived), replaces this token and draws them all.
    const drawing = (this.drawing = {});
    const next = () => {
      if (drawing !== this.drawing) return;
      // Destroyed, or the engine restarted: there is nothing left to draw from.
      if (!this.lab || !this.summary) {
        this.drawing = undefined;
        return;
      }
      try {
        this.drawCharts([left.shift()], true);
      } catch (e) {
        // The view says what failed, counts as ready (it shows the error) and still describes
        // the run in its text alternatives; the next change draws every chart again.
        this.error.textContent = String(e.message || e);
        this.drawing = undefined;
        this.settleDrawn(e);
        this.fillAlternativesLater();
        this.onFirstDraw?.();
        return;
      }
      if (left.length) {
        nextFrameThen(next);
        return;
      }
      this.drawing = undefined;
      this.firstPicture();
      this.settleDrawn();
      this.fillAlternativesLater();
    };
    // After the frame: the browser first lays out what the run changed on the page, in its own
    // task, rather than inside the first chart's drawing (a canvas resolves its font against the
    // page's styles).
    if (firstNow) next();
    else nextFrameThen(next);
  }

  /// Takes the page's picture of the first frame away: the canvas is drawn, or the view no longer
  /// shows the lesson's default scenario.
  dropFirstPicture() {
    this.firstPictureSlot?.remove();
    this.firstPictureSlot = undefined;
  }

  /// The view is built before the engine's module has loaded, its controls inert until then:
  /// once it has, the view can run.
  attach() {
    views.add(this);
    this.root.inert = false;
    this.root.removeAttribute("aria-busy");
  }

  /// Marks the first picture (figures and charts drawn) once the styles are in: the element is
  /// then ready.
  firstPicture() {
    if (this.firstDrawnAt !== undefined || !this.stylesReady) return;
    this.firstDrawnAt = performance.now();
    this.onFirstDraw?.();
    this.warmUpLater();
  }

  /// While the student reads the first picture, in idle time and once: the runs at three of the
  /// interval slider's values (the shortest, whose checkpoints the engine handles far more often
  /// than in the default run, and two across its range), each in a lab of its own, freed once
  /// its charts are drawn on canvases never shown. The browser has then compiled and optimised
  /// that code, and measured those labels, before the student first drags there (BENCHMARKS.md,
  /// "Kept"). It gives way to the page step by step and stops at the first change
  /// the student makes.
  warmUpLater() {
    // The browser optimises the module's code, shared by every view of the page: once is enough.
    if (warmedUp) return;
    warmedUp = true;
    const config = this.config();
    const values = SETTINGS_BY_KEY.interval_ms.steps.values ?? [];
    const intervals = [0, Math.floor(values.length / 3), Math.floor((2 * values.length) / 3)]
      .map((i) => values[i])
      .filter((v, i, all) => v !== undefined && v !== config.interval_ms && all.indexOf(v) === i);
    if (!intervals.length) return;
    const generation = this.generation;
    const idle = (fn) => (window.requestIdleCallback ? requestIdleCallback(fn, { timeout: 1000 }) : setTimeout(fn, 50));
    // A canvas never attached for each chart, of its size, so each run redraws it as a slider
    // move redraws the view's; emptied once done, so their pixels are not kept until collected.
    const canvases = CHARTS.map(([name]) => {
      const { width, height } = this.charts[name].canvas;
      return [name, Object.assign(document.createElement("canvas"), { width, height })];
    }).filter(([, canvas]) => canvas.width > 0 && canvas.height > 0);
    const dark = this.root.classList.contains("dark");
    const dpr = window.devicePixelRatio || 1;
    let lab;
    const made = restarts;
    const free = () => {
      // A lab of an instance discarded by a panic is gone with it.
      if (made === restarts) lab?.free();
      lab = undefined;
    };
    const done = () => {
      free();
      for (const [, canvas] of canvases) Object.assign(canvas, { width: 0, height: 0 });
    };
    // Bounded steps, each returning whether it is done (else it runs again at the next idle
    // time): for each interval a lab of its own (each run starts from nothing, not from the one
    // before), the run a slice at a time, each chart drawn, the lab freed.
    const steps = intervals.flatMap((interval_ms) => [
      () => { lab = new glue.Lab(); lab.begin({ ...config, interval_ms }); return true; },
      () => lab.advance(WARM_UP_SLICE_MS).done,
      ...canvases.map(([name, canvas]) => () => { lab.draw(name, canvas, dark, dpr, undefined); return true; }),
      () => { free(); return true; },
    ]);
    const step = (deadline) => {
      if (generation !== this.generation || !views.has(this) || made !== restarts) return done();
      // A step (a cold chart's drawing, say) takes a few milliseconds: it waits for an idle
      // period that long, so a change the student makes meanwhile is not held up behind it.
      if (deadline && !deadline.didTimeout && deadline.timeRemaining() < WARM_UP_IDLE_MS) return idle(step);
      try {
        if (steps[0]()) steps.shift();
      } catch {
        return done();
      }
      if (steps.length) idle(step);
      else done();
    };
    idle(step);
  }

  /// Resolves once the latest change is drawn: no run in flight and none waiting for its frame
  /// (a newer change than the caller's counts, as it carries the caller's options too). Rejects
  /// with the error of a run that failed (or of a cursor that is not a time of it), and with an
  /// AbortError when the view is destroyed first. What set() returns.
  whenDrawn() {
    const waiter = this.drawnWaiter();
    this.settleDrawn();
    return waiter.promise;
  }

  /// A waiter for the next settling, registered before a change is applied: a run small enough to
  /// finish inside the change settles it (with a cursor error, say) before the change returns.
  drawnWaiter() {
    const waiter = {};
    waiter.promise = new Promise((resolve, reject) => Object.assign(waiter, { resolve, reject }));
    (this.drawnWaiters ??= []).push(waiter);
    return waiter;
  }

  /// Forgets a waiter whose change was refused.
  dropDrawnWaiter(waiter) {
    this.drawnWaiters = (this.drawnWaiters ?? []).filter((w) => w !== waiter);
  }

  /// Settles whenDrawn()'s promises: rejects them with `error`, or resolves them once the view is idle with a run.
  settleDrawn(error) {
    if (!this.drawnWaiters?.length) return;
    if (!error && (this.busy || this.pending || this.drawing || !this.summary)) return;
    // What set() and mount() wait for is every chart drawn, in view or not.
    if (!error && this.outOfView.size) {
      try {
        this.drawOutOfView();
      } catch (e) {
        error = e;
      }
    }
    const waiters = this.drawnWaiters;
    this.drawnWaiters = [];
    for (const waiter of waiters) (error ? waiter.reject(error) : waiter.resolve());
  }

  /// Re-runs from the controls; shows an error in the component instead of throwing.
  update(cause, started = performance.now()) {
    try {
      this.startRun(this.config(), cause, started);
    } catch (e) {
      // A setting refused (or a run that failed in this task): the controls still show what
      // the student chose.
      this.showReadouts();
      this.error.textContent = String(e.message || e);
    }
  }

  /// Marks that the engine ran since the frame began; the next frame's animation callbacks clear
  /// it. A change that comes before then waits for them (see schedule).
  ranThisFrame() {
    if (this.engineRanThisFrame) return;
    this.engineRanThisFrame = true;
    requestAnimationFrame(() => { this.engineRanThisFrame = false; });
  }

  /// Coalesces bursts of input into one update per frame.
  schedule(cause) {
    const started = performance.now();
    if (cause) this.cause = cause;
    // A newer value makes the run in progress worthless: drop it now, before its next slice.
    this.generation = (this.generation || 0) + 1;
    if (this.pending) return;
    // With no run in flight and none started or sliced since the frame began, the first change
    // of a frame starts at once; others wait for the frame's callbacks and are coalesced, so at
    // most one run or slice starts per frame, whatever the display's frame rate.
    if (!this.busy && !this.engineRanThisFrame) {
      const why = this.cause;
      this.cause = undefined;
      this.update(why, started);
      return;
    }
    this.pending = true;
    const go = () => {
      this.pending = false;
      const why = this.cause;
      this.cause = undefined;
      if (!this.host.isConnected) return;
      this.firstSliceNow = true;
      this.update(why, started);
    };
    // A heavy run in flight: the next one starts after the frame, in a task of its own.
    if (this.busy) nextFrameThen(go);
    else requestAnimationFrame(go);
  }

  /// Play moves the cursor through the run at the chosen speed (a gloo-timers interval on the
  /// Rust side, Player); with prefers-reduced-motion it jumps from event to event instead.
  togglePlay() {
    if (this.player) {
      this.player.free?.();
      clearInterval(this.player.jumps);
      this.player = undefined;
      this.flushDraw();
      this.play.textContent = "Play";
      this.play.setAttribute("aria-pressed", "false");
      return;
    }
    if (!this.summary) return;
    const end = this.horizonMs / 1000;
    const now = this.cursorMs() / 1000;
    const from = now < end - 1 ? now : 0;
    if (this.reducedMotion.matches) {
      this.player = { jumps: setInterval(() => {
        const before = this.cursorMs();
        this.stepEvent(1);
        if (this.cursorMs() === before) this.togglePlay();
      }, 1500) };
      this.stepEvent(1);
    } else {
      this.player = new Player(from, end, Number(this.speed.get()), (t) => {
        this.setCursor(t * 1000);
        if (t >= end) this.togglePlay();
      });
    }
    this.play.textContent = "Pause";
    this.play.setAttribute("aria-pressed", "true");
  }

  /// The engine is about to be re-created (a panic): Play stops while the old instance still
  /// answers; the run and the pin are gone with it, so the settings run again shortly.
  engineStopped() {
    try {
      this.player?.free();
    } catch {
      // the instance is going away; its timer goes with it
    }
    this.player = undefined;
    this.play.textContent = "Play";
    this.play.setAttribute("aria-pressed", "false");
    this.pinned = undefined;
    this.pinId++;
    this.pinButton.textContent = "Pin these settings as A";
    this.unpinButton.setAttribute("hidden", "");
    this.summary = undefined;
    this.drawing = undefined;
    this.generation = (this.generation || 0) + 1; // drops slices of a run in the old instance
    this.busy = true;
    clearTimeout(this.altTimer);
    setTimeout(() => {
      this.busy = false;
      if (this.lab && this.host.view === this) this.host.refresh(false);
    });
  }

  destroy() {
    views.delete(this);
    this.player?.free?.();
    clearInterval(this.player?.jumps);
    this.player = undefined;
    clearTimeout(this.describeTimer);
    this.resizeObserver.disconnect();
    this.viewObserver?.disconnect();
    clearTimeout(this.outOfViewTimer);
    this.darkQuery.removeEventListener("change", this.onScheme);
    clearTimeout(this.altTimer);
    this.settleDrawn(new DOMException("the lab was destroyed before its run was drawn", "AbortError"));
    if (this.drawFrame) cancelAnimationFrame(this.drawFrame);
    this.lab.free();
    this.lab = undefined;
  }
}


const CONFIG_ATTRIBUTES = new Set(SETTINGS.map((s) => s.attribute));
const OBSERVED = [...CONFIG_ATTRIBUTES, "sink", "scenario", "controls", "exercise", "exercises", "exercises-src", "theme", "charts", "cursor"];

/// The custom element. Attributes configure it; changing one re-runs and redraws.
/// Outside a browser (a site's build step evaluating modules in Node) there is no HTMLElement:
/// importing this module then defines nothing and touches nothing.
const ElementBase = globalThis.HTMLElement ?? class {};

export class CheckpointLabElement extends ElementBase {
  static observedAttributes = OBSERVED;

  constructor() {
    super();
    // A first screen the page wrote as a declarative shadow root is this element's shadow root
    // already; the view replaces it when it is built (see LabView.build).
    if (!this.shadowRoot) this.attachShadow({ mode: "open" });
  }

  connectedCallback() {
    if (this.view) return Promise.resolve();
    // A second call while the first is under way (mount() calls it after append() has) waits
    // for the first.
    this.connecting ??= this.connect().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  async connect() {
    // The view is built at once, from the settings table, and shows the first screen while the
    // engine's module loads; the page's picture of the first frame stands in for the pipeline
    // view where it may (see firstPictureFits).
    const builtNow = !this.built;
    // The first chart's module is compiled (or, compiled by the page already, instantiated)
    // while the view is built and laid out: asked for after, it would wait for that frame's
    // rendering too.
    if (builtNow && !this.firstPictureFits() && !this.drawsFirstChartItself() && !firstChartNow()) loadFirstChart().catch(() => {});
    if (builtNow) {
      this.built = new LabView(this, this.shadowRoot);
      if (!this.firstPictureFits()) this.built.dropFirstPicture();
      const drawn = this.pageDrewFirstChart();
      // The controls' readouts are written by the first chart's module, which the head ran.
      if (drawn && firstChartNow()) this.built.showFirstChart(drawn, this.getAttribute("scenario") || "lesson", this.getAttribute("sink"), drawn.at, "page");
    }
    // Where no picture of the first frame stands, the first chart's module draws it before the
    // lab's module is fetched; a module (or styles) slower than FIRST_CHART_PATIENCE_MS no longer
    // holds the lab back, and draws only if it still comes first.
    if (builtNow && !this.firstPictureFits()) {
      await Promise.race([this.drawFirstChart(), new Promise((resolve) => setTimeout(resolve, FIRST_CHART_PATIENCE_MS))]);
    }
    // Where the element shows exercises from the start, their module loads beside the lab's.
    const options = this.initialOptions ?? {};
    const showsExercises = this.hasAttribute("exercises-src")
      || [["exercise", options.exercise], ["exercises", options.exercises]].some(([name, option]) => namesExercises(option ?? this.getAttribute(name)));
    // A module that fails to load is reported where the exercises would be shown (see apply()).
    try {
      await Promise.all([load(), showsExercises ? loadExercises().catch(() => {}) : undefined]);
    } catch (e) {
      // The module did not load (a network error, a blocked file): the view says so and stays
      // inert; a later connection tries again.
      this.built.dropFirstPicture();
      this.built.error.textContent = `The simulation could not load: ${e.message || e}`;
      ready = undefined;
      return;
    }
    const src = this.getAttribute("exercises-src");
    let loadError;
    if (src) {
      try {
        const response = await fetch(new URL(src, document.baseURI));
        if (!response.ok) throw new Error(`exercises-src: ${src} answered ${response.status}`);
        await registerExercises(await response.json());
      } catch (e) {
        loadError = e;
      }
    }
    // Built now, and in this task when the module was loaded already: the first run starts in a
    // task of its own, so that building the view and starting a heavy run do not make one long
    // task.
    if (builtNow) await yieldToPage();
    if (!this.isConnected || this.view) return;
    this.view = this.built;
    this.built = undefined;
    this.view.error.textContent = "";
    this.view.attach();
    // mount()'s options, so that its first run is sliced too.
    if (this.initialOptions) this.view.options = this.initialOptions;
    this.initialOptions = undefined;
    // The first run is sliced like any other, so the page never blocks; "ready" means drawn.
    this.view.onFirstDraw = () => this.markReady();
    try {
      this.apply(false);
    } catch (e) {
      this.firstError = e;
      this.view.dropFirstPicture();
      this.view.error.textContent = String(e.message || e);
      this.markReady();
    }
    if (loadError) {
      // Shown until the page is loaded again: runs that finish later show it too.
      this.view.sourceError = String(loadError.message || loadError);
      this.view.error.textContent = this.view.sourceError;
    }
  }

  /// Draws the pipeline view where it first stands with the first chart's module (see
  /// loadFirstChart), unless the lab's module has loaded already or the first view is not that
  /// one: mount() options, a cursor, an exercise's settings, a `charts` or `controls` attribute
  /// (which lay the view out otherwise), an unknown scenario. Never throws: the lab draws the
  /// view anyway, and reports what is wrong with a setting.
  async drawFirstChart() {
    const view = this.built;
    try {
      if (!view || this.drawsFirstChartItself()) return;
      // Where the page has the module ready (see FIRST_CHART_MODULE), it does not wait for one.
      let firstChart = view.stylesReady ? firstChartNow() : undefined;
      if (!firstChart) [firstChart] = await Promise.all([loadFirstChart(), view.styled]);
      // Cold, running the scenario up to the first view and drawing it take over 50 ms together,
      // so each has a task of its own after this one (which may have built the view): the run,
      // with the canvas's size, then the drawing. The attributes are read again at each step: a
      // run made for other settings is not drawn (drawFirstChart runs its own).
      const scenario = () => {
        const name = this.getAttribute("scenario") || "lesson";
        return this.built === view && this.isConnected && !this.drawsFirstChartItself() && Object.hasOwn(SCENARIOS, name) ? name : undefined;
      };
      await yieldToPage();
      if (!scenario()) return;
      firstChart.prepareFirstChart(SCENARIOS[scenario()].settings, this.settingAttributes());
      if (!view.charts.pipeline.figure.hidden) view.canvasSize(view.charts.pipeline.canvas);
      await yieldToPage();
      const scenarioName = scenario();
      if (!scenarioName) return;
      view.drawFirstChart(firstChart.drawFirstChart, scenarioName, this.settingAttributes(), this.getAttribute("sink"));
    } catch {
      // The lab draws the view.
    }
  }

  /// Whether the lab draws the first view itself, not the first chart's module: it has loaded
  /// already, or the first view is not the pipeline where it first stands (see drawFirstChart).
  drawsFirstChartItself() {
    return labLoaded || Boolean(this.initialOptions) || ["cursor", "charts", "controls", "exercises-src"].some((name) => this.hasAttribute(name))
      || ["exercise", "exercises"].some((name) => namesExercises(this.getAttribute(name)));
  }

  /// Whether the page's picture of the first frame shows what the first run will draw: the lesson's
  /// default scenario, at its default cursor, with no attribute or option that changes the view.
  firstPictureFits() {
    return !this.initialOptions && (!OBSERVED.some((name) => this.hasAttribute(name)) || Boolean(this.pageDrewFirstChart()));
  }

  /// What the page's head drew in the "first-picture" slot from a shared link (see
  /// FIRST_CHART_MODULE), where that is the first view of this element's attributes: `{ config,
  /// cursor_ms, at }`; else undefined.
  pageDrewFirstChart() {
    const drawn = globalThis[FIRST_CHART_MODULE]?.drawn;
    if (!(drawn?.canvas instanceof HTMLCanvasElement) || drawn.canvas.parentNode !== this || this.initialOptions || this.drawsFirstChartItself()) return undefined;
    const attributes = JSON.stringify(OBSERVED.filter((name) => this.hasAttribute(name)).map((name) => [name, this.getAttribute(name)]).sort());
    return drawn.canvas.dataset.drawnFor === attributes ? drawn : undefined;
  }

  /// Once: the first picture is drawn (or a bad setting is shown instead).
  markReady() {
    if (this.dataset.ready) return;
    this.dataset.ready = "true";
    this.dispatchEvent(new CustomEvent("checkpointlab-ready", { bubbles: true, composed: true }));
  }

  /// Resolves once the first picture is drawn.
  whenReady() {
    return this.dataset.ready ? Promise.resolve() : new Promise((resolve) => this.addEventListener("checkpointlab-ready", resolve, { once: true }));
  }

  disconnectedCallback() {
    queueMicrotask(() => {
      if (!this.isConnected && this.view) {
        this.view.destroy();
        this.view = undefined;
      }
    });
  }

  attributeChangedCallback(name, previous, value) {
    // Before the first run, any setting or view attribute set may change the first picture.
    if (!this.view) {
      if (this.built && !this.firstPictureFits()) this.built.dropFirstPicture();
      // A first chart drawn from the attributes before they changed: the lab's first run draws
      // its own first picture again.
      if (this.built?.firstChartBy) this.built.preview = undefined;
      return;
    }
    // Moving the cursor needs no new run.
    if (name === "cursor") {
      try {
        if (value === null) this.view.setCursor(this.view.lab.default_cursor());
        else this.view.seek(value);
        this.view.flushDraw();
      } catch (e) {
        this.view.error.textContent = String(e.message || e);
      }
      return;
    }
    this.refresh(true);
  }

  /// The element's setting attributes, as written: { interval: "30s", ... }.
  settingAttributes() {
    const attributes = {};
    for (const name of this.getAttributeNames()) if (CONFIG_ATTRIBUTES.has(name)) attributes[name] = this.getAttribute(name);
    return attributes;
  }

  /// The config the attributes and mount options describe (throws an Error naming a bad one).
  describedConfig() {
    const view = this.view;
    const scenarioName = textOption("scenario", view.options.scenario ?? this.getAttribute("scenario")) || "lesson";
    const scenario = Object.hasOwn(SCENARIOS, scenarioName) ? SCENARIOS[scenarioName] : undefined;
    if (!scenario) throw new Error(`scenario: must be one of ${Object.keys(SCENARIOS).join(", ")} (got ${JSON.stringify(scenarioName)})`);
    const config = { ...scenario.settings, ...parseAttributes(this.settingAttributes()) };
    for (const [k, v] of Object.entries(view.options)) if (!VIEW_OPTIONS.includes(k)) config[k] = v;
    return { config, scenarioName };
  }

  /// Applies the attributes and options and re-runs in slices over frames; throws an Error naming
  /// a bad setting before anything changes.
  apply(cause) {
    const view = this.view;
    const { config, scenarioName } = this.describedConfig();
    const sink = textOption("sink", view.options.sink ?? this.getAttribute("sink"));
    if (sink && !SINKS.some(([value]) => value === sink)) {
      throw new Error(`sink: must be one of ${SINKS.map(([v]) => v).join(", ")} (got ${JSON.stringify(sink)})`);
    }
    const theme = textOption("theme", view.options.theme ?? this.getAttribute("theme"));
    if (theme && !THEMES.includes(theme)) {
      throw new Error(`theme: must be light, dark or auto (got ${JSON.stringify(theme)})`);
    }
    const controls = listOption("controls", view.options.controls ?? this.getAttribute("controls"), ALL_CONTROLS);
    const views = listOption("charts", view.options.charts ?? this.getAttribute("charts"), ALL_VIEWS);
    const cursor = view.options.cursor ?? this.getAttribute("cursor") ?? undefined;
    if (cursor !== undefined && typeof cursor !== "string" && typeof cursor !== "number") {
      throw new Error(`cursor: must be a clock time like "10:00:58" or milliseconds since the scenario start (got ${describeValue(cursor)})`);
    }
    const exercises = this.exerciseIds();
    view.lab.begin(config); // checks every field before anything changes
    view.scenario.set(scenarioName);
    if (sink) view.c.sink.set(sink);
    view.showControls(controls);
    view.showViews(views);
    view.applySettings(config);
    const settled = { ...view.settings(), ...view.extra };
    view.pendingCursor = cursor;
    const showNow = !exercises.length || exerciseCatalogue();
    // A module that failed to load stays said while exercises are named and it is not in.
    if (showNow) view.exercisesError = undefined;
    view.startRun(settled, cause ? "attribute" : undefined);
    view.exercisesShown = showNow ? undefined : this.showExercisesOnceLoaded();
    if (showNow) this.showExercises(exercises);
  }

  /// Shows the exercise panel for `ids` (none: hides it).
  showExercises(ids) {
    const view = this.view;
    view.exercisesError = undefined;
    const key = ids.join(" ");
    if (!ids.length) {
      view.panel = undefined;
      view.panelKey = undefined;
      view.exercisePanel.setAttribute("hidden", "");
      view.root.classList.remove("predicting");
    } else if (view.panelKey !== key) {
      view.panelKey = key;
      view.panel = new exercises.Panel(view, ids);
      view.panel.go(0);
    }
  }

  /// Exercises named before their module was loaded (their ids checked against the built-in
  /// ones): loads it, then shows the exercises the element names by then. A module that fails to
  /// load is shown inside the component, and stays shown over later runs. Resolves once shown.
  showExercisesOnceLoaded() {
    const shown = loadExercises().then(() => {
      if (this.view) this.showExercises(this.exerciseIds());
    }, (e) => {
      const message = `exercises: could not be loaded (${e.message || e})`;
      // Unless a newer change named none (or an unknown one, whose error is shown already).
      const stillNamed = () => {
        try {
          return this.exerciseIds().length > 0;
        } catch {
          return false;
        }
      };
      if (this.view && stillNamed()) {
        this.view.exercisesError = message;
        this.view.error.textContent = message;
      }
      throw new Error(message);
    });
    shown.catch(() => {});
    return shown;
  }

  /// The exercises the attributes or options select; throws naming an unknown id.
  exerciseIds() {
    const view = this.view;
    const one = textOption("exercise", view.options.exercise ?? this.getAttribute("exercise"));
    const many = listOption("exercises", view.options.exercises ?? this.getAttribute("exercises"));
    let ids = [];
    if (!one && !many) return ids;
    const known = exerciseCatalogue() ?? BUILTIN_IDS;
    if (many?.length === 1 && many[0] === "all") ids = [...known.keys()];
    else if (many) ids = many;
    if (one) ids = [one, ...ids.filter((id) => id !== one)];
    for (const id of ids) {
      if (!known.has(id)) throw new Error(`exercise: unknown exercise ${JSON.stringify(id)}; known: ${[...known.keys()].join(", ")}`);
    }
    return ids;
  }

  /// Like apply(), but shows a bad setting as a message inside the component.
  refresh(cause) {
    try {
      this.apply(cause);
    } catch (e) {
      this.view.error.textContent = String(e.message || e);
      // With no run left to draw (the engine restarted), set()'s promises hear of the error.
      if (!this.view.busy && !this.view.pending) this.view.settleDrawn(e);
    }
  }

  /// The report of the current run, as a plain object; undefined before the first run.
  report() {
    return this.view?.summary ? this.view.lab.report() : undefined;
  }

  /// The headline figures of the current run.
  summary() {
    return this.view?.summary;
  }

  /// True while a change is waiting for its frame or its run is being computed.
  get busy() {
    return Boolean(this.view?.busy || this.view?.pending);
  }
}

if (globalThis.customElements && !customElements.get("checkpoint-lab")) customElements.define("checkpoint-lab", CheckpointLabElement);

function checkOptions(options) {
  if (options === undefined) return {};
  if (options === null || typeof options !== "object" || Array.isArray(options)) {
    throw new Error("options: must be an object, like { interval_ms: 30000, sink: \"upsert\" }");
  }
  return options;
}

/// Mounts a lab into `element`. Returns a handle with set(options), report(), seek(), world() and destroy().
/// Options take the keys simulate() takes plus sink, controls, charts, cursor, theme, scenario and exercise.
export async function mount(element, options) {
  if (!(element instanceof Element)) throw new Error("element: must be a DOM element");
  const first = checkOptions(options);
  await load();
  const lab = document.createElement("checkpoint-lab");
  // The options go into the first run, which is sliced over frames like a student's change.
  lab.initialOptions = first;
  element.append(lab);
  // A mount that fails leaves nothing behind: the element and its engine are removed.
  const discard = () => {
    lab.remove();
    lab.view?.destroy();
    lab.view = undefined;
  };
  try {
    await lab.connectedCallback();
    await lab.whenReady();
    if (lab.firstError) throw lab.firstError instanceof Error ? lab.firstError : new Error(String(lab.firstError));
  } catch (e) {
    discard();
    throw e;
  }
  const handle = {
    element: lab,
    /// Applies options: checks them at once (throwing an Error naming a bad field and keeping the
    /// last good run), then runs them in slices over frames like an attribute change; a newer
    /// set() or attribute change drops the run. Returns a Promise of the handle, resolved once the
    /// charts are drawn and any exercise named is shown (rejected if that run fails, the cursor is
    /// not a time of it or the exercises' module cannot be loaded), which also carries the
    /// handle's methods, so `handle.set(a).destroy()` still chains.
    set(next) {
      const opts = checkOptions(next);
      const view = lab.view;
      if (!view) throw new Error("set: the lab was destroyed");
      const previous = view.options;
      view.options = { ...previous, ...opts };
      const waiter = view.drawnWaiter();
      try {
        lab.apply(true);
      } catch (e) {
        view.options = previous;
        view.dropDrawnWaiter(waiter);
        throw e instanceof Error ? e : new Error(String(e));
      }
      view.settleDrawn();
      // Exercises named before their module has loaded are shown once it has: the Promise waits
      // for them too (and rejects if the module cannot be loaded).
      const drawn = Promise.all([waiter.promise, view.exercisesShown]).then(() => handle);
      // A caller that ignores the Promise sees a failure inside the component, not as an unhandled rejection.
      drawn.catch(() => {});
      return Object.assign(drawn, handle);
    },
    report: () => lab.report(),
    summary: () => lab.summary(),
    /// Moves the cursor to `time` (a clock time "10:00:58" or ms since the scenario start);
    /// throws an Error naming `cursor` when it is not a time of this run.
    seek(time) {
      lab.view.seek(time);
      return handle;
    },
    /// The world at the cursor: { at, status, detail, description, checkpoint, restoring, offsets, lag_events, sinks, ... }.
    world: () => lab.view.lab.world(lab.view.cursorMs()),
    destroy() {
      lab.remove();
      lab.view?.destroy();
      lab.view = undefined;
    },
  };
  return handle;
}
