// The warm-up: while the student reads the first picture, the engine runs and draws a few of the
// interval slider's values on canvases never shown, so the browser has compiled and optimised
// that code before the first drag. Scheduler (scheduler.js) starts it once a view has drawn.
import { WARM_UP } from "./settings.js";
import { glue, views, restarts } from "./engine.js";

/// Engine time per slice of the warm-up runs made while the student reads.
const WARM_UP_SLICE_MS = 4;
/// The idle time a warm-up step waits for: about what its longest step, a chart's first
/// drawing, takes.
const WARM_UP_IDLE_MS = 10;
/// Whether a view of this page has started the warm-up runs.
let warmedUp = false;

/// While the student reads the first picture, in idle time and once: the runs at three of the
/// interval slider's values (the shortest, whose checkpoints the engine handles far more often
/// than in the default run, and two across its range), each in a lab of its own, freed once
/// its charts are drawn on canvases never shown. The browser has then compiled and optimised
/// that code, and measured those labels, before the student first drags there (BENCHMARKS.md,
/// "Kept"). It gives way to the page step by step and stops at the first change
/// the student makes.
export function warmUpLater(view) {
  // The browser optimises the module's code, shared by every view of the page: once is enough,
  // by the view that shows every chart (an inline figure warms up only what it draws).
  if (warmedUp || view.chartsNamed !== undefined) return;
  warmedUp = true;
  const config = view.config();
  const changes = WARM_UP.filter((change) => Object.entries(change).some(([key, value]) => config[key] !== value));
  if (!changes.length) return;
  const generation = view.generation;
  const idle = (fn) => (window.requestIdleCallback ? requestIdleCallback(fn, { timeout: 1000 }) : setTimeout(fn, 50));
  // A canvas never attached for each chart, of its size, so each run redraws it as a slider
  // move redraws the view's; emptied once done, so their pixels are not kept until collected.
  const canvases = view.shownCharts().map((name) => {
    const { width, height } = view.charts[name].canvas;
    return [name, Object.assign(document.createElement("canvas"), { width, height })];
  }).filter(([, canvas]) => canvas.width > 0 && canvas.height > 0);
  const dark = view.root.classList.contains("dark");
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
  const steps = changes.flatMap((change) => [
    () => { lab = new glue.Lab(); lab.show(view.chartsNamed, view.controlsNamed); lab.begin({ ...config, ...change }); return true; },
    () => lab.advance(WARM_UP_SLICE_MS).done,
    ...canvases.map(([name, canvas]) => () => { lab.draw(name, canvas, dark, dpr, undefined); return true; }),
    () => { free(); return true; },
  ]);
  const step = (deadline) => {
    if (generation !== view.generation || !views.has(view) || made !== restarts) return done();
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

