// The three WebAssembly modules as the element loads them: the lab's (the engine), compiled while
// it streams in; the first chart's, which draws a shared link's first picture before the lab has
// loaded; the exercises' (their checks, running the lab's engine), only where a page shows them. A panic in the engine restarts its
// instance rather than poisoning the page. Also the two ways the element gives the page its turn.
import init, * as glue from "./checkpoint_lab.js";
import { BUILTIN_EXERCISE_IDS } from "./settings.js";
import { el, listOption, ALL_CONTROLS } from "./shared.js";

export { glue };

// ---------- surviving a panic in the engine ----------
// A Rust panic aborts the wasm instance. The engine then tells the page (the event below, while
// the old instance still answers) and is re-created on the next call, so one panic never poisons
// the module. Objects of the discarded instance (each view's Lab) are stale: a view
// makes a new Lab on its next call and runs its settings again.
export let restarts = 0;
/// Every live view, to stop its timers and re-run it after a restart.
export const views = new Set();
globalThis.addEventListener?.("checkpointlab-engine-restart", () => {
  restarts++;
  for (const view of views) view.engineStopped();
});

/// What a call that trapped throws instead of the bare `RuntimeError`.
export function restartedError(e) {
  if (!(e instanceof WebAssembly.RuntimeError)) return e;
  return new Error(`engine: the WebAssembly instance stopped (${e.message}) and was restarted; this call did not complete, the next one runs in the new instance`);
}
/// `fn`, throwing restartedError() instead of a trap.
export const guarded = (fn) => (...args) => {
  try {
    return fn(...args);
  } catch (e) {
    throw restartedError(e);
  }
};
export const wasmDefaults = guarded(glue.defaults), parseAttributes = guarded(glue.parseAttributes);
const labFormatValue = guarded(glue.formatValue), labView = guarded(glue.viewOf);
/// Whether the lab's module has loaded (see load).
export let labLoaded = false;
/// The first chart's module formats values as the lab's does, until that has loaded.
let firstChartFormatValue, firstChartView;
export const formatValue = (key, value) => (labLoaded || !firstChartFormatValue ? labFormatValue : firstChartFormatValue)(key, value);
/// What the page shows for the controls at `values` before any run (lesson::view), from whichever
/// module has loaded; undefined while none has.
export const viewOf = (values) => (labLoaded ? labView(values) : firstChartView?.(values));
export const settingsText = guarded(glue.settingsText);

/// A view's engine handle that outlives a restart: every call goes to the Lab of the current
/// instance (made anew after a restart) and a trap becomes restartedError(). The Lab is made at
/// the first call, so a view can be built before the module has loaded.
export function viewLab() {
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

/// Where a module's bytes come from: its URL, which the glue fetches (compiling while it streams
/// in), or where that URL is a file, as in Node, whose fetch() cannot read file: URLs, the file's
/// bytes.
function wasmSource(url) {
  if (url.protocol !== "file:") return url;
  const fs = globalThis.process?.getBuiltinModule?.("node:fs");
  if (!fs) {
    return Promise.reject(new Error(`checkpoint-lab: cannot load ${url.href}: fetch() cannot read a file: URL and this runtime `
      + "has no process.getBuiltinModule (Node 20.16 or later has). Use \"checkpoint-lab/engine\" with the wasm's bytes instead "
      + "(the package's README, \"Node\")."));
  }
  return fs.promises.readFile(url);
}

let ready;
/// Forgets a load that failed: the next call tries again.
export function forgetLoad() {
  ready = undefined;
}

/// How much of the lab's module has arrived: { loaded, total } in bytes (total 0 where the server
/// does not say, or says the compressed size); listeners hear of it at most once a frame while it
/// streams in (every view on the page writes its loading line then: told of each part, ten
/// figures rewrote theirs for every chunk of one task's worth of parts).
export const loadProgress = {
  loaded: 0, total: 0, listeners: new Set(), frame: undefined,
  tell() {
    if (this.frame !== undefined) return;
    const tell = () => {
      this.frame = undefined;
      for (const listener of this.listeners) listener(this);
    };
    this.frame = globalThis.requestAnimationFrame ? requestAnimationFrame(tell) : (tell(), undefined);
  },
};

/// Why the module did not load, in words for the student, and what to do; the browser's own
/// message, with the file and the server's answer, is `detail`.
export class LoadError extends Error {
  constructor(kind, detail) {
    super({
      blocked: "The simulation could not start (this page's security settings do not allow WebAssembly). Reload the page; if this keeps happening, tell the course team: the page's Content-Security-Policy needs 'wasm-unsafe-eval' in script-src.",
      network: "The simulation could not load (the connection failed). Check your connection and reload the page; if this keeps happening, tell the course team.",
      file: "The simulation could not load (the file is missing or damaged). Reload the page; if this keeps happening, tell the course team.",
    }[kind]);
    this.kind = kind;
    this.detail = detail;
  }
}

/// Fetches the lab's module, counting its bytes into loadProgress; a missing file (an error
/// status) or a web page in its place (a login page) is refused before it is compiled.
async function fetchModule(url) {
  let response;
  try {
    response = await fetch(url);
  } catch (e) {
    throw new LoadError("network", `${url}: ${e.message || e}`);
  }
  const type = response.headers.get("content-type") || "";
  if (!response.ok) throw new LoadError("file", `${url}: the server answered ${response.status} ${response.statusText}`.trim());
  if (/text\/html/i.test(type)) throw new LoadError("file", `${url}: the server sent a web page (${type}), not the WebAssembly module`);
  const encoded = response.headers.get("content-encoding");
  loadProgress.total = encoded && encoded !== "identity" ? 0 : Number(response.headers.get("content-length")) || 0;
  if (!response.body || typeof TransformStream !== "function") return response;
  const counted = response.body.pipeThrough(new TransformStream({
    transform(chunk, controller) {
      loadProgress.loaded += chunk.byteLength;
      loadProgress.tell();
      controller.enqueue(chunk);
    },
  }));
  return new Response(counted, { status: response.status, statusText: response.statusText, headers: response.headers });
}

/// Loads the WebAssembly module once per page: compiled while it streams in. A failure rejects
/// with a LoadError.
export function load() {
  const url = new URL("./checkpoint_lab_bg.wasm", import.meta.url);
  if (!ready) loadProgress.loaded = 0;
  // In Node the module is a file, read from disk; in a browser it is fetched and counted.
  const file = url.protocol === "file:";
  ready ??= init({ module_or_path: file ? wasmSource(url) : fetchModule(url) }).then((module) => {
    labLoaded = true;
    return module;
  }, (e) => {
    if (e instanceof LoadError || file) throw e;
    const text = `${url}: ${e?.name ?? "Error"}: ${e?.message ?? e}`;
    // A policy without 'wasm-unsafe-eval' refuses the compilation (Chromium names the policy,
    // Firefox says "blocked by CSP").
    throw new LoadError(/Content.Security.Policy|unsafe-eval|\bCSP\b/i.test(String(e?.message)) ? "blocked" : "file", text);
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
export const FIRST_CHART_PATIENCE_MS = 4000;
/// Where a page may leave the first chart's module ready before the element's module has run,
/// its HTML still being parsed (index.html's head does, on a shared link):
/// `globalThis[FIRST_CHART_MODULE] = { compiled: WebAssembly.compileStreaming(fetch(wasm)) }`, with
/// `module` set to the compiled module once it is, and `glue` to the module namespace of
/// `checkpoint_lab_first.js` once imported. With both, the element instantiates the module in the
/// task that builds its view and runs and draws the first chart in the tasks that follow, without
/// waiting for a module; with the compilation alone, it instantiates what was compiled rather than
/// fetching it again.
/// Anything else found there is ignored.
export const FIRST_CHART_MODULE = Symbol.for("checkpoint-lab.first-chart-module");
/// Whether `module` is the first chart's module compiled (it exports drawFirstChart).
const isFirstChartModule = (module) => module instanceof WebAssembly.Module && WebAssembly.Module.exports(module).some((e) => e.name === "drawFirstChart");
/// The first chart's module (its glue, instantiated) at once, where the page left the module
/// compiled and its glue imported (see FIRST_CHART_MODULE); undefined otherwise.
export function firstChartNow() {
  const early = globalThis[FIRST_CHART_MODULE];
  const glue = early?.glue;
  if (!isFirstChartModule(early?.module) || typeof glue?.initSync !== "function" || typeof glue.drawFirstChart !== "function") return undefined;
  try {
    glue.initSync({ module: early.module });
  } catch {
    return undefined;
  }
  [firstChartFormatValue, firstChartView] = [glue.formatValue, glue.viewOf];
  firstChartReady ??= Promise.resolve(glue);
  return glue;
}
/// Loads the first chart's module once per page; resolves to its glue, instantiated.
/// The first charts the first chart's module is drawing now. An element that draws its own first
/// view (an inline figure) waits for them before it fetches the lab's module, so that fetch does
/// not compete with theirs.
const firstChartsDrawing = new Set();
export function drawingFirstChart(drawn) {
  firstChartsDrawing.add(drawn);
  drawn.finally(() => firstChartsDrawing.delete(drawn));
  return drawn;
}
/// Read after the elements defined together have all started: an element before the lab in the
/// page (a figure above it) waits for the lab's first chart too.
export const firstChartsDrawn = () => Promise.resolve().then(() => Promise.allSettled([...firstChartsDrawing]));

export function loadFirstChart() {
  firstChartReady ??= import("./checkpoint_lab_first.js").then(async (module) => {
    const url = wasmSource(new URL("./checkpoint_lab_first_bg.wasm", import.meta.url));
    // A compilation the page started is awaited rather than repeated; one that fails, or gives
    // another module, is not used.
    const early = globalThis[FIRST_CHART_MODULE]?.compiled;
    const pending = early instanceof Promise ? early.then((m) => (isFirstChartModule(m) ? m : url), () => url) : url;
    await module.default({ module_or_path: pending }).catch((e) => {
      if (pending === url) throw e;
      return module.default({ module_or_path: url });
    });
    [firstChartFormatValue, firstChartView] = [module.formatValue, module.viewOf];
    return module;
  });
  firstChartReady.catch(() => { firstChartReady = undefined; });
  return firstChartReady;
}

// ---------- the exercises' module ----------
// The exercises (the catalogue, an author's exercises checked field by field, a student's answer
// checked against a run) are a small module of their own with no engine: each check runs the
// lab's engine, passed in as `simulate`. It is loaded only once a page shows or registers
// exercises: a lesson page without them never fetches it.
let exercisesReady;
/// What the exercises' module gives (validate) and the panel built on it, once loadExercises()
/// has resolved.
export let exercises;
/// Exercises by id: the built-in ones, then any a page registers.
export const catalogue = new Map();

/// A run of the lab's engine as a check reads it: the report without its series and timeline.
function runForCheck(config) {
  const { series, timeline, ...report } = glue.simulate(config);
  return report;
}

/// Loads the exercises' module and their panel (exercise-panel.js) once per page, with the lab
/// whose engine the checks run, and reads the built-in exercises into the catalogue.
export function loadExercises() {
  exercisesReady ??= Promise.all([import("./checkpoint_lab_exercises.js"), import("./exercise-panel.js"), load()]).then(async ([module, panel]) => {
    await module.default({ module_or_path: wasmSource(new URL("./checkpoint_lab_exercises_bg.wasm", import.meta.url)) });
    const validate = guarded((list) => module.validateExercises(list, runForCheck));
    const check = guarded((exercise, answer) => module.checkExercise(exercise, answer, runForCheck));
    const reveal = guarded((exercise) => module.revealExercise(exercise, runForCheck));
    const Panel = panel.exercisePanel({ el, listOption, controls: ALL_CONTROLS, catalogue, check, reveal });
    for (const exercise of guarded(module.builtinExercises)()) catalogue.set(exercise.id, exercise);
    exercises = { validate, Panel };
  });
  // A failed load is tried again on the next call (a browser may keep the failed module's error).
  exercisesReady.catch(() => { exercisesReady = undefined; });
  return exercisesReady;
}

/// The exercise catalogue; undefined until loadExercises() has resolved.
export function exerciseCatalogue() {
  return exercises ? catalogue : undefined;
}

/// The exercises known before the exercises' module has loaded: the built-in ones (a page
/// registers its own through registerExercises(), which loads it).
export const BUILTIN_IDS = new Set(BUILTIN_EXERCISE_IDS);

/// Whether an `exercise` or `exercises` value names any exercise.
export const namesExercises = (value) => (Array.isArray(value) ? value.length > 0 : value != null && String(value).trim() !== "");

/// Calls `work` once the next frame has been rendered, in a task of its own: a slice of engine
/// work never shares a task with the frame's rendering (style, layout, paint and the compositor's
/// commit), so neither makes the other's task long.
export function nextFrameThen(work) {
  requestAnimationFrame(() => yieldToPage().then(work));
}

/// Resolves after the page has had its turn (input, rendering), without setTimeout's 4 ms clamp.
export function yieldToPage() {
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      resolve();
    };
    channel.port2.postMessage(null);
  });
}
