// The package's public API besides the element: run a scenario without a page (simulate), the
// defaults, settings as attributes, the exercise catalogue, and mount() for pages that build the
// element from script. Events are the element's (see element.js).
import { TAG } from "./shared.js";
import { glue, load, restarts, restartedError, wasmDefaults, settingsText, yieldToPage, loadExercises, exercises, catalogue } from "./engine.js";

export { load };
/// Named scenarios: the settings each changes from the lesson's default (src/lesson/scenarios.rs).
export { SCENARIOS } from "./settings.js";
/// Engine time per slice of simulate(), which has no frame to share: well inside a 50 ms task.
const SIMULATE_SLICE_MS = 10;

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
    // Only the report is read: no chart, no control, nothing kept beside it.
    lab.show([], []);
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

function checkOptions(options) {
  if (options === undefined) return {};
  if (options === null || typeof options !== "object" || Array.isArray(options)) {
    throw new Error("options: must be an object of settings and view options, like mount() takes");
  }
  return options;
}

/// Mounts a lab into `element`. Returns a handle with set(options), report(), seek(), world() and destroy().
/// Options take the keys simulate() takes plus sink, controls, charts, cursor, theme, scenario and exercise.
export async function mount(element, options) {
  if (!(element instanceof Element)) throw new Error("element: must be a DOM element");
  const first = checkOptions(options);
  await load();
  const lab = document.createElement(TAG.name);
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
