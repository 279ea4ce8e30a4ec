// When the lab runs the engine and draws: at most one run or slice per frame, long runs in slices
// that leave the page its turn, charts out of view drawn once the changes pause, the first
// picture in tasks of its own, and a warm-up while the student reads. LabView (lab-view.js)
// builds on it and says what is shown; this file says when.
import { CHARTS, SCENARIOS, CRASH_SETTING } from "./settings.js";
import { warmUpLater } from "./warm-up.js";
import { backingSize, el, setText, writeRows } from "./shared.js";
import { views, formatValue, nextFrameThen, yieldToPage } from "./engine.js";

/// How long a slice of the world's preparation for the text alternatives runs, in ms.
export const PREPARE_SLICE_MS = 8;
/// A chart farther than this outside the viewport is not redrawn while the student drags or
/// scrubs: it is drawn as it nears the viewport, or once the changes pause for
/// OUT_OF_VIEW_SETTLE_MS (and before set() or mount() resolves).
export const OUT_OF_VIEW_MARGIN = "200px 0px";
const OUT_OF_VIEW_SETTLE_MS = 200;
/// Engine time per frame for runs started by the student: the page never blocks for longer.
const FRAME_BUDGET_MS = 16;
/// The engine time a frame gives to runs made ahead (runAheadLater).
const RUN_AHEAD_SLICE_MS = 3;
/// About how many events the engine hashes in FRAME_BUDGET_MS: a run that hashes more (counting
/// a new data plane, or simulating without one) takes several frames.
const EVENTS_PER_FRAME = 4_000_000;

export class Scheduler {
  // ----- drawing -----
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
      // A chart the view does not show may not be built (see showViews).
      const canvas = this.charts[name]?.canvas;
      if (!canvas?.isConnected) continue;
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
    this.drawMini();
  }

  /// Draws the pipeline beside the time charts (lab-view.js's miniCanvas) at the cursor, where it
  /// is shown and in view, when the run, the cursor, the theme or its size changed.
  drawMini() {
    const canvas = this.miniCanvas;
    if (!canvas?.isConnected || !this.summary || !this.lab || !this.stylesReady || this.nearView.get(canvas) !== true) return;
    const size = this.canvasSize(canvas);
    if (size.width === 0) return;
    const dpr = window.devicePixelRatio || 1;
    const [w, h] = backingSize(size, dpr);
    const dark = this.theme();
    const cursorS = this.cursorMs() / 1000;
    const key = `${this.runId} ${dark} ${w}x${h} ${dpr} ${cursorS}`;
    if (this.miniKey === key) return;
    if (canvas.width !== w || canvas.height !== h) { canvas.width = w; canvas.height = h; }
    this.lab.draw("pipeline", canvas, dark, dpr, cursorS);
    this.miniKey = key;
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
  fillAlternatives(names = this.shownCharts()) {
    if (!this.lab) return;
    if (!this.lab.prepare_world(PREPARE_SLICE_MS)) {
      this.altTimer = setTimeout(() => this.fillAlternatives(names), 0);
      return;
    }
    const [name, ...rest] = names;
    if (name) this.fillAlternative(name);
    if (rest.length) this.altTimer = setTimeout(() => this.fillAlternatives(rest), 0);
  }

  /// The charts the view shows.
  shownCharts() {
    return CHARTS.map(([name]) => name).filter((name) => this.charts[name] && !this.charts[name].figure.hidden);
  }

  fillAlternative(name) {
    if (!this.charts[name]) return;
    const { summary, table, details, canvas } = this.charts[name];
    const alt = this.lab.text_alternative(name);
    canvas.setAttribute("aria-label", alt.summary);
    if (!details.open) return;
    setText(summary, alt.summary);
    // Written in place; built again when the columns change (micro-batch mode names others).
    if (table.tHead?.rows[0]?.cells.length !== alt.columns.length) table.replaceChildren(el("thead"), el("tbody"));
    writeRows(table.tHead, [alt.columns], () => el("tr", {}, ...alt.columns.map(() => el("th", { scope: "col" }))));
    writeRows(table.tBodies[0], alt.rows, () => el("tr", {}, ...alt.columns.map(() => el("td"))));
  }

  /// Tells the engine what the view shows, when that changed: it computes and keeps of each run
  /// what the charts and controls shown need (charts::Shown).
  tellShown() {
    const shown = JSON.stringify([this.chartsNamed ?? null, this.controlsNamed ?? null]);
    if (shown === this.labShown) return;
    this.lab.show(this.chartsNamed, this.controlsNamed);
    this.labShown = shown;
  }

  startRun(config, cause, started = performance.now()) {
    this.tellShown();
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
        this.showControlsView();
        this.error.textContent = String(e.message || e);
        this.busy = false;
        this.settleDrawn(e);
        return;
      }
      if (!result.done) {
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
      this.finishRun(result.summary, config, cause, slices > 1, started);
      this.ranThisFrame();
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
    if (!(this.summary && now)) this.showControlsView();
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
    this.cursorInput.max = String(this.horizonMs);
    this.cursorInput.value = String(drawn.cursor_ms);
    this.cursorOut.textContent = formatValue("clock_ms", this.startMs + drawn.cursor_ms);
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

  showProgress(fraction) {
    if (fraction == null) {
      if (!this.progressBar.hasAttribute("hidden")) this.progressBar.setAttribute("hidden", "");
    } else {
      this.progressBar.removeAttribute("hidden");
      this.progressBar.setAttribute("aria-valuenow", String(Math.round(fraction * 100)));
      this.progressFill.style.transform = `scaleX(${fraction})`;
    }
  }

  /// Shows a finished run: the change event first, as soon as its figures are known, then what
  /// the page shows of it (its charts, the figures, controls, crash table, cursor and export).
  /// After a run that took several slices (a heavy one) the charts are drawn in tasks of their own.
  finishRun(summary, config, cause, sliced = false, started = undefined) {
    this.summary = summary;
    this.firstRunAt ??= performance.now();
    this.runId++;
    // Charts of an earlier run still being drawn a few at a time: this run's replace them.
    this.drawing = undefined;
    this.tradeoffInputs = JSON.stringify({ ...config, [CRASH_SETTING]: undefined });
    this.instants = undefined;
    if (cause) {
      this.host.dispatchEvent(new CustomEvent("checkpointlab-change", { bubbles: true, composed: true, detail: { ...summary, settings: config } }));
    }
    // What the page shows for this run besides its charts, in one call (lesson::view).
    const view = this.lab.view(this.config());
    this.horizonMs = view.span_ms;
    this.defaultCursorMs = view.default_cursor_ms;
    this.playLoopMs = view.play_loop_ms ?? undefined;
    if (this.cursorS !== undefined && this.cursorS * 1000 > this.horizonMs) this.cursorS = this.horizonMs / 1000;
    // The cursor the page wrote, read again after each run: a time relative to the crash
    // ("crash+1s") follows the crash the student moves.
    const wanted = this.pendingCursor ?? this.cursorSource;
    this.pendingCursor = undefined;
    if (wanted !== undefined) {
      this.cursorSource = wanted;
      try {
        this.cursorS = this.lab.cursor(wanted) / 1000;
      } catch (e) {
        this.cursorError = String(e.message || e);
      }
    }
    // A run clears the errors of earlier ones, not those that stand: the exercises' module or an
    // exercises-src file that failed to load. Written before the charts, so that one which fails
    // to draw says so.
    setText(this.error, this.cursorError ?? this.exercisesError ?? this.sourceError ?? this.settingsError ?? "");
    const cursorFailed = this.cursorError && new Error(this.cursorError);
    this.cursorError = undefined;
    clearTimeout(this.altTimer);
    // The charts first, while the page's styles are still clean: a canvas resolves its font
    // against them, so drawing after the figures and the cursor changed would make the browser
    // recompute styles in the middle of drawing, and again when it renders.
    if (sliced || this.firstDrawnAt === undefined) this.drawChartsInTasks(!sliced);
    else this.drawCharts();
    this.showCursor();
    this.render(view);
    this.showExport();
    // For `timings`: from the change to its charts drawn.
    if (started !== undefined) this.timings.push(performance.now() - started);
    // Unless the charts are being drawn in tasks: the text alternatives later, the first
    // picture's mark, and whenDrawn()'s waiters.
    if (!this.drawing) {
      this.fillAlternativesLater();
      this.firstPicture();
    }
    this.settleDrawn(cursorFailed || undefined);
    this.runAheadLater();
  }

  /// A student about to move `slider` (focused, or the pointer on it): its next step each way
  /// is made ahead (runAheadLater), so the first move finds its run made too.
  planAhead(slider) {
    try {
      if (this.summary && this.lab.plan_ahead(slider.dataset.control)) this.runAheadLater();
    } catch {
      // Nothing made ahead: the move runs on demand.
    }
  }

  /// After a run, a slice after each frame until the next run is shown: the runs the engine
  /// plans from its change (the next step each way of the slider moved, lesson::runs), so the
  /// student's next step finds its run made. Not in idle callbacks: on the lesson page, headless
  /// Chromium went seconds without one while the main thread was idle.
  runAheadLater() {
    const token = (this.aheadToken = {});
    const step = () => {
      if (token !== this.aheadToken || !this.lab || !views.has(this)) return;
      if (this.busy || this.drawing) return nextFrameThen(step);
      try {
        if (!this.lab.run_ahead(RUN_AHEAD_SLICE_MS)) nextFrameThen(step);
      } catch {
        // A lab that failed here makes its next run on demand.
      }
    };
    nextFrameThen(step);
  }


  /// Draws every chart, in view or not, one per frame, each after the frame's rendering: a canvas
  /// drawn for the first time at its size gets its buffers at the commit that carries it (in
  /// Chromium without a GPU, about 8 ms for a chart at twice the pixel ratio), so one frame
  /// carrying every chart would make one long task. `firstNow` draws the first chart in this
  /// task. After a heavy run, or the view's first. The view counts as drawn (set(), mount(), the
  /// first picture) once the last one is.
  drawChartsInTasks(firstNow = false) {
    const left = this.shownCharts();
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
    this.stopLoading();
    this.loadFailure?.remove();
    this.loadFailure = undefined;
    this.root.classList.remove("failed");
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
    this.autoplay();
    warmUpLater(this);
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
      this.showControlsView();
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
}
