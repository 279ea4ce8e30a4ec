// One lab inside a shadow root: its controls, figures, charts and crash table, built from the
// generated settings module and filled from what the engine computes for each change
// (src/lesson/view.rs): this file only puts those strings and pictures where they go. When to run
// and draw is the scheduler's (scheduler.js); the scenario time it shows is the cursor's (cursor.js).
import { SCENARIOS, SINKS, CHARTS, TIME_CHARTS, FIGURES, COMPARE_HINT, FIRST_CURSOR, FIRST_CLOCK } from "./settings.js";
import { CONTROLLED, MAIN_SETTINGS, ADVANCED_SETTINGS, ALL_CONTROLS, ALL_VIEWS, DEFAULT_CONFIG, el, setText, writeRows } from "./shared.js";
import { viewLab, views, viewOf, loadProgress } from "./engine.js";
import { PREPARE_SLICE_MS, OUT_OF_VIEW_MARGIN } from "./scheduler.js";
import { Cursor } from "./cursor.js";
import { slider, control, select, stepValues, place } from "./controls.js";
import { ExportPanel } from "./export-panel.js";
// The text of checkpoint-lab.css, bundled in as a string (scripts/build-wasm.sh).
import STYLES from "./checkpoint-lab.css";

let instances = 0;

/// The component's styles as one constructed stylesheet, made on first use and adopted by every
/// instance's shadow root.
let sheet;

/// Gives `shadow` the component's styles: true where it adopted the shared stylesheet, else (a
/// browser without constructed stylesheets, or a root in another document) a <style> element
/// holding them, for the caller to put in the root.
function adoptStyles(shadow) {
  try {
    if (!sheet) {
      const made = new CSSStyleSheet();
      made.replaceSync(STYLES);
      sheet = made;
    }
    shadow.adoptedStyleSheets = [...shadow.adoptedStyleSheets.filter((s) => s !== sheet), sheet];
    return true;
  } catch {
    const style = document.createElement("style");
    style.textContent = STYLES;
    return style;
  }
}

export class LabView extends Cursor {
  constructor(host, shadow) {
    super();
    this.host = host;
    this.shadow = shadow;
    this.id = `cl${++instances}`;
    this.lab = viewLab();
    this.base = { ...DEFAULT_CONFIG };
    this.options = {};
    this.pending = false;
    /// Each change's time from its input to its charts drawn, in ms (read by the benchmarks).
    this.timings = [];
    this.cursorS = undefined;
    this.build();
  }

  // ----- building the UI (the controls themselves: controls.js) -----
  slider(setting, values) {
    return slider(this.id, setting, values);
  }

  control(setting) {
    return control(this.id, setting);
  }

  select(name, label, options) {
    return select(this.id, name, label, options);
  }

  build() {
    const base = this.base;
    this.startMs = FIRST_CLOCK.start_ms;
    this.horizonMs = FIRST_CLOCK.span_ms;
    // Controls for the table's settings, by config key; then the view's own choices. Each is
    // its value until the view shows it (see showControls): its row is built then.
    const c = (this.c = {});
    for (const setting of CONTROLLED) c[setting.key] = this.control(setting);
    c.sink = this.select("sink", "Sink design to highlight", SINKS);
    c.window = this.select("window", "Window shown", []);
    c.product = this.select("product", "Product shown", Array.from({ length: 10 }, (_, i) => [i, `product ${i}`]));

    // The defaults, as the first run will show them: the thumbs where they stand and the readouts
    // as the engine writes them (generated into the settings module), before its module has loaded.
    for (const setting of CONTROLLED) {
      const control = c[setting.key];
      const value = base[setting.key];
      if (!control.values) {
        control.set(value);
      } else if (value !== null) {
        control.set(value);
        if (setting.default_readout) control.show(setting.default_readout);
      }
    }
    // The rows go in when shown (showControls): the main settings here, the others in "More settings".
    this.mainControls = el("div", { class: "controls" });
    this.advancedControls = el("div", { class: "controls" });
    this.advanced = el("details", { class: "advanced" }, el("summary", {}, "More settings"), this.advancedControls);
    this.scenario = this.select("scenario", "Scenario", Object.entries(SCENARIOS).map(([k, p]) => [k, p.label]));
    this.reset = el("button", { type: "button", "data-action": "reset" }, "Reset to defaults");
    this.play = el("button", { type: "button", "data-action": "play", "aria-pressed": "false" }, "Play");
    this.speed = this.select("speed", "Speed", [[5, "5×"], [10, "10×"], [30, "30×"], [60, "60×"]]);
    this.speed.set(10);
    this.speed.build();
    this.actions = el("div", { class: "actions" }, this.reset);
    const main = this.mainControls;

    // The headline figures: a value, its label and, while comparing, A and B − A under it.
    const figures = el("ul", { class: "figures", "aria-label": "Headline figures" });
    this.figureNodes = {};
    for (const [key, label] of FIGURES) {
      const value = el("span", { class: "value", "data-figure": key });
      const name = el("span", { class: "label" }, label);
      const pinned = el("span", { class: "pinned", "data-figure-a": key, hidden: "" });
      figures.append(el("li", {}, value, name, pinned));
      this.figureNodes[key] = { value, label: name, pinned };
    }
    this.warnings = el("div", { class: "warnings", role: "status", "aria-live": "polite" });
    this.pinButton = el("button", { type: "button", "data-action": "pin" }, "Pin these settings as A");
    this.unpinButton = el("button", { type: "button", "data-action": "unpin", hidden: "" }, "Stop comparing");
    this.compareStatus = el("span", { class: "compare-status", "data-compare": "status" }, COMPARE_HINT);
    this.compareBar = el("div", { class: "compare" }, this.pinButton, this.unpinButton, this.compareStatus);
    // The export panel and the charts other than the pipeline view are built once shown (see
    // showViews): an inline figure builds the parts it names, the whole lab all of them.
    this.exportPanel = undefined;
    this.charts = {};
    this.axes = {};
    this.chartList = el("div", { class: "charts" });
    this.buildChart("pipeline");
    // Beside the time charts, the pipeline at their cursor: a smaller copy that stays at the top
    // of the window while they scroll by (the whole lab on a wide view only; see drawMini), so
    // hovering a chart shows the job at that instant. The pipeline view carries its name and text.
    this.miniCanvas = el("canvas", { class: "mini-chart", "data-mini": "pipeline", "aria-hidden": "true" });
    this.miniFigure = el("div", { class: "mini-pipeline" }, this.miniCanvas);
    this.chartList.prepend(this.miniFigure);
    this.figuresList = figures;
    // The scenario time where the pipeline view first stands with a crash: at the crash.
    if (FIRST_CURSOR) {
      this.cursorInput.max = String(FIRST_CURSOR.max_ms);
      this.cursorInput.value = String(FIRST_CURSOR.ms);
      this.cursorOut.textContent = FIRST_CURSOR.text;
      this.cursorInput.setAttribute("aria-valuetext", FIRST_CURSOR.text);
    }
    // Its rows stack on a phone (CSS grid): the roles keep it a table to assistive technology.
    this.crashTable = el("table", { class: "crash-table", "data-table": "crash", role: "table" });
    this.error = el("p", { class: "error", role: "alert" });
    // A bar the compositor moves (a transform), not a native <progress> the page repaints every
    // frame: repainting that beside large canvases made the frames of a long run stall.
    this.progressFill = el("span", { class: "fill" });
    this.progressBar = el("div", { class: "running", role: "progressbar", "aria-valuemin": "0", "aria-valuemax": "100", "aria-valuenow": "0", hidden: "", "aria-label": "Simulating" }, this.progressFill);
    this.exercisePanel = el("section", { class: "exercise", hidden: "" });
    // Until the engine's module has loaded: the controls look and are not live, the progress bar
    // shows the module's bytes as they arrive, and a line over the picture says so in words.
    this.loading = el("p", { class: "loading", role: "status", "data-loading": "" }, "Loading the simulation…");
    this.charts.pipeline.figure.append(this.loading);
    this.progressBar.removeAttribute("hidden");
    this.progressBar.setAttribute("aria-label", "Loading the simulation");
    this.progressBar.removeAttribute("aria-valuenow");
    this.onLoadProgress = ({ loaded, total }) => {
      if (!this.loading) return;
      if (!total) {
        // The server did not say the size (or said the compressed one): the bytes so far.
        setText(this.loading, `Loading the simulation… ${Math.round(loaded / 1024).toLocaleString("en-US")} KB`);
        return;
      }
      const percent = Math.min(99, Math.floor((100 * loaded) / total));
      this.progressBar.setAttribute("aria-valuenow", String(percent));
      this.progressFill.style.transform = `scaleX(${percent / 100})`;
      setText(this.loading, `Loading the simulation… ${percent}%`);
    };
    loadProgress.listeners.add(this.onLoadProgress);

    // A page may have written the first screen into its HTML (a declarative shadow root, see the
    // README's "The first screen"): its styles (a copy of checkpoint-lab.css, or a link to it,
    // loaded already) are kept, and the rest of it gives way to this view in the same task, so
    // nothing moves or flashes. Otherwise the view takes the styles this module carries (the
    // text of checkpoint-lab.css, bundled in) as a constructed stylesheet shared by every
    // instance: in force from the view's first frame, with nothing to fetch, so the element never
    // shows unstyled parts at another height than its own (a page's policy of `style-src 'self'`
    // allows it: a policy governs <style> and style attributes, not the CSS object model).
    const written = this.shadow.querySelector("style[data-styles=checkpoint-lab]")
      ?? [...this.shadow.querySelectorAll("link[rel=stylesheet]")].find((link) => /(^|\/)checkpoint-lab\.css([?#]|$)/.test(new URL(link.href, document.baseURI).pathname));
    const adopted = written ? undefined : adoptStyles(this.shadow);
    const css = written ?? adopted;
    // Charts are drawn once the styles are in: before that a canvas has no CSS size, and
    // sizing its backing store from its own box would grow it at every draw.
    this.stylesReady = css === true || css.localName === "style" || Boolean(css.sheet);
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
    if (css !== true) {
      css.addEventListener("load", stylesArrived);
      css.addEventListener("error", stylesArrived);
    }
    this.crashHeading = el("h3", {}, "A crash, second by second");
    this.chartsHeading = el("h3", {}, "Charts");
    // The first screen: the main sliders, the headline figures and the pipeline at the cursor.
    this.root = el("div", { class: "lab" },
      this.exercisePanel, main, this.error, this.progressBar, figures, this.charts.pipeline.figure,
      this.advanced, this.actions, this.compareBar, this.warnings,
      this.crashHeading, this.crashTable,
      this.chartsHeading, this.chartList);
    // Until the engine's module has loaded (attach), the view shows the lesson's first screen
    // without answering input.
    this.root.inert = true;
    this.root.setAttribute("aria-busy", "true");
    for (const node of [...this.shadow.childNodes]) if (node !== written) node.remove();
    // The written stylesheet stays where it is: moved, it would be loaded and applied again.
    this.shadow.append(...(css instanceof Node && css !== written ? [css] : []), this.root);

    this.reset.addEventListener("click", () => { this.scenario.set("lesson"); this.applySettings({}); this.cursorS = undefined; this.update("input"); });
    this.reducedMotion = window.matchMedia("(prefers-reduced-motion: reduce)");
    this.play.addEventListener("click", () => {
      this.autoplayStopped = true;
      this.togglePlay();
    });
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
        if (entry.target === this.miniCanvas) this.miniKey = undefined;
        else resized.push(entry.target.dataset.chart);
      }
      // After layout, before paint: the resized charts are drawn in this frame.
      if (this.summary && this.lab) this.drawCharts(resized);
    });
    for (const { canvas } of [...Object.values(this.charts), { canvas: this.miniCanvas }]) this.resizeObserver.observe(canvas);
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
        if (entry.target === this.charts.pipeline?.canvas) this.autoplay(entry.isIntersecting);
      }
      if (entries.some((entry) => entry.target === this.miniCanvas && entry.isIntersecting)) this.drawMini();
      if (near.length && this.summary && this.lab) this.drawCharts(near);
    }, { rootMargin: OUT_OF_VIEW_MARGIN });
    for (const { canvas } of [...Object.values(this.charts), { canvas: this.miniCanvas }]) this.viewObserver?.observe(canvas);
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

  showViews(list) {
    const shown = new Set(list == null ? ALL_VIEWS : list);
    const toggle = (node, on) => (on ? node.removeAttribute("hidden") : node.setAttribute("hidden", ""));
    for (const [name] of CHARTS) {
      if (shown.has(name)) this.buildChart(name);
      if (this.charts[name]) toggle(this.charts[name].figure, shown.has(name));
    }
    toggle(this.figuresList, shown.has("figures"));
    toggle(this.warnings, shown.has("figures"));
    toggle(this.crashHeading, shown.has("crash-table"));
    toggle(this.crashTable, shown.has("crash-table"));
    const others = CHARTS.some(([name]) => name !== "pipeline" && shown.has(name));
    toggle(this.chartsHeading, others && list == null);
    toggle(this.miniFigure, list == null);
    if (list == null && !this.exportPanel) {
      // Written when opened, and after each run while open: a closed panel costs a run nothing.
      this.exporter = new ExportPanel(this.shadow, () => this.summary && this.lab && this.showExport());
      this.root.append(this.exportPanel = this.exporter.panel);
    }
    if (this.exportPanel) toggle(this.exportPanel, list == null);
    this.root.classList.toggle("inline", list != null);
    this.viewsShown = shown;
    // What the engine is told at the next run (see startRun): it keeps what these need.
    this.chartsNamed = list == null ? undefined : [...list];
    // Until the module is in, "Loading the simulation…" stands over the first chart shown.
    const first = [this.charts.pipeline, ...Object.values(this.charts)].find((chart) => !chart.figure.hidden);
    if (this.loading && first && this.loading.parentNode !== first.figure) first.figure.append(this.loading);
  }

  /// Builds chart `name`'s figure once: its canvas and text alternative, and for the pipeline view
  /// the cursor bar and the slot of the page's first picture. The pipeline view's is built with
  /// the view (it holds the cursor); another chart's when first shown (see showViews), in its
  /// place among the others.
  buildChart(name) {
    if (this.charts[name]) return this.charts[name];
    const title = CHARTS.find(([n]) => n === name)[1];
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
      // The page's picture of this view in the lesson's default scenario (see firstPicture
      // in the README), over the canvas until the engine has drawn it.
      this.firstPictureSlot = el("slot", { name: "first-picture", class: "first-picture" });
      figure.prepend(this.firstPictureSlot);
    } else {
      // Before the next chart of the list built already, if any.
      const later = CHARTS.slice(CHARTS.findIndex(([n]) => n === name) + 1).map(([n]) => this.charts[n]).find((c) => c && c.figure.parentNode === this.chartList);
      this.chartList.insertBefore(figure, later?.figure ?? null);
    }
    if (TIME_CHARTS.includes(name) || name === "pipeline") this.scrubbable(name, canvas);
    const chart = (this.charts[name] = { canvas, summary, table, details, figure });
    // The observers are made once the view is built (see build), and observe the charts built later.
    this.resizeObserver?.observe(canvas);
    this.viewObserver?.observe(canvas);
    if (name === "checkpoints" && this.timelineTitle) this.nameTimeline(this.timelineTitle);
    return chart;
  }

  /// The checkpoint timeline's names in its text alternative (the batch timeline in micro-batch mode).
  nameTimeline(title) {
    this.timelineTitle = title;
    const timeline = this.charts.checkpoints;
    if (!timeline) return;
    setText(timeline.details.querySelector("summary"), `${title}: summary and data`);
    if (timeline.table.getAttribute("aria-label") !== `${title}: data`) timeline.table.setAttribute("aria-label", `${title}: data`);
  }

  // ----- settings -----
  /// The controlled settings, exactly as given (never rounded to a slider step).
  settings() {
    const out = {};
    for (const setting of CONTROLLED) out[setting.key] = this.c[setting.key].none ? null : this.c[setting.key].get();
    return out;
  }

  /// Sets the controls from config values (missing keys take the defaults); the engine then
  /// writes their readouts and steps (the crash slider follows the horizon) and the window list.
  applySettings(values) {
    const v = { ...this.base, ...values };
    for (const setting of CONTROLLED) {
      const control = this.c[setting.key];
      let value = v[setting.key];
      control.none = value === null;
      if (control.none) continue;
      // A choice may be given in the command line's spelling ("micro-batch"); the control holds the config's.
      if (setting.unit.kind === "choice") value = setting.unit.choices.find((c) => c.flag_value === value)?.value ?? value;
      control.set(value);
    }
    const controlled = new Set(CONTROLLED.map((s) => s.key));
    this.extra = Object.fromEntries(Object.entries(values).filter(([k]) => !controlled.has(k)));
    this.showControlsView();
  }

  /// Shows only the named controls (["interval", "state-size", "crash-at", "advanced", "actions"]),
  /// building the rows of those not built yet: a control the view never shows is never built.
  showControls(list) {
    const shown = new Set(list == null ? ALL_CONTROLS : list);
    this.controlsNamed = list == null ? undefined : [...list];
    const toggle = (node, on) => (on ? node.removeAttribute("hidden") : node.setAttribute("hidden", ""));
    toggle(this.compareBar, shown.has("compare"));
    const c = this.c;
    const advanced = shown.has("advanced");
    // The main settings, in the table's order, then an advanced setting named on its own (as an
    // inline figure's one control); the other advanced settings stay in "More settings", in the
    // table's order, built once it is shown.
    const main = [];
    for (const setting of MAIN_SETTINGS) {
      const control = c[setting.key];
      if (shown.has(setting.attribute)) this.controlRow(control);
      if (control.row) {
        toggle(control.row, shown.has(setting.attribute));
        main.push(control.row);
      }
    }
    const more = [];
    for (const setting of ADVANCED_SETTINGS) {
      const control = c[setting.key];
      const alone = list != null && shown.has(setting.attribute);
      if (alone || advanced) this.controlRow(control);
      if (control.row) (alone ? main : more).push(control.row);
    }
    if (advanced) for (const control of [c.sink, c.window, c.product]) this.controlRow(control);
    place(this.mainControls, main);
    place(this.advancedControls, [c.sink.row, ...more, c.window.row, c.product.row].filter(Boolean));
    toggle(this.advanced, advanced);
    if (shown.has("actions") && !this.scenario.row) this.actions.prepend(this.controlRow(this.scenario));
    toggle(this.actions, shown.has("actions"));
    for (const [name, nodes] of Object.entries(this.cursorParts)) for (const node of nodes) toggle(node, shown.has(name));
    toggle(this.cursorBar, shown.has("cursor") || shown.has("play"));
  }

  /// A control's row, built the first time with what its input does: a setting or a choice of
  /// the view runs again, the scenario sets its settings first.
  controlRow(control) {
    if (control.row) return control.row;
    const row = control.build();
    const input = control.input;
    if (control === this.scenario) {
      input.addEventListener("change", () => { this.applySettings(SCENARIOS[this.scenario.get()].settings); this.update("input"); });
    } else {
      input.addEventListener(input.tagName === "SELECT" ? "change" : "input", () => this.schedule("input"));
      if (input.type === "range") for (const type of ["focus", "pointerenter"]) input.addEventListener(type, () => this.planAhead(input));
    }
    return row;
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

  // ----- what the engine computed for this change -----
  /// The controls' labels, readouts, steps and enabled states for their current values, from
  /// whichever module has loaded (nothing before one has, or for a value the engine refuses).
  showControlsView() {
    try {
      this.render(viewOf(this.config()));
    } catch {
      // The run reports the value it refuses.
    }
  }

  /// Puts what the engine computed for this change (lesson::view) where it goes.
  render(view) {
    if (!view) return;
    this.startMs = view.start_ms;
    this.horizonMs = view.span_ms;
    // The last run's (render runs before a run too, with none).
    if (view.default_cursor_ms != null) this.defaultCursorMs = view.default_cursor_ms;
    for (const shown of view.controls) {
      const control = this.c[shown.key];
      control.describe(shown.label, shown.disabled);
      for (const option of shown.options) control.nameOption(option.value, option.label);
      if (!control.values) continue;
      const steps = stepValues(shown.steps);
      if (steps.length !== control.values.length || steps[0] !== control.values[0] || steps.at(-1) !== control.values.at(-1)) control.steps(steps);
      control.show(shown.readout);
    }
    for (const sink of view.sinks) this.c.sink.nameOption(sink.value, sink.label);
    const windows = JSON.stringify(view.windows);
    if (windows !== this.windowsShown) {
      this.windowsShown = windows;
      const chosen = this.c.window.get();
      this.c.window.replaceOptions(view.windows.map((w) => [w.value, w.label]));
      if (view.windows.some((w) => String(w.value) === chosen)) this.c.window.set(chosen);
    }
    // The checkpoint timeline is the batch timeline in micro-batch mode: its text alternative's
    // names say so too (the canvas's own label is the alternative's summary, see fillAlternative).
    this.nameTimeline(view.timeline_title);
    setText(this.compareStatus, view.compare_status);
    for (const figure of view.figures) {
      const nodes = this.figureNodes[figure.key];
      setText(nodes.value, figure.value);
      setText(nodes.label, figure.label);
      nodes.pinned.toggleAttribute("hidden", figure.compare == null);
      if (figure.compare != null) setText(nodes.pinned, figure.compare);
    }
    if (!view.figures.length) return;
    if (this.warnings.textContent !== view.warnings.join("")) {
      this.warnings.replaceChildren(...view.warnings.map((w) => el("p", { class: "warning" }, w)));
    }
    // Moving the interval often leaves the crash's story as it was: then the table stays.
    const crashRows = JSON.stringify(view.crash_table);
    if (crashRows === this.crashTableShown && this.crashTable.isConnected) return;
    this.crashTableShown = crashRows;
    const td = (attrs = {}) => el("td", { role: "cell", ...attrs });
    if (this.crashBody?.parentNode !== this.crashTable) {
      const th = (text) => el("th", { scope: "col", role: "columnheader" }, text);
      const head = el("tr", { role: "row" }, th("time"), th("offset"), th("what happens"));
      this.crashBody = el("tbody", { role: "rowgroup" });
      this.crashTable.replaceChildren(el("thead", { role: "rowgroup" }, head), this.crashBody);
    }
    writeRows(this.crashBody, view.crash_table.map((r) => [r.at, r.offset, r.what]), () => el("tr", { role: "row" }, td(), td({ class: "num" }), td()));
  }

  // ----- comparing two settings -----
  pin() {
    if (!this.summary) return;
    this.lab.pin();
    this.pinId++;
    this.pinned = true;
    this.pinButton.textContent = "Pin these settings as A instead";
    this.unpinButton.removeAttribute("hidden");
    this.render(this.lab.view(this.config()));
    this.drawCharts();
  }

  unpin() {
    this.lab.unpin();
    this.pinId++;
    this.pinned = undefined;
    this.pinButton.textContent = "Pin these settings as A";
    this.unpinButton.setAttribute("hidden", "");
    this.render(this.lab.view(this.config()));
    this.drawCharts();
  }

  /// Writes the export panel from the last run, where it is open.
  showExport() {
    if (this.exportPanel?.open) this.exporter.show(this.lab.export());
  }

  /// The engine is about to be re-created (a panic): Play stops while the old instance still
  /// answers; the run and the pin are gone with it, so the settings run again shortly.
  engineStopped() {
    this.stopPlay();
    this.pinned = undefined;
    this.pinId++;
    this.pinButton.textContent = "Pin these settings as A";
    this.unpinButton.setAttribute("hidden", "");
    this.summary = undefined;
    this.drawing = undefined;
    this.labShown = undefined; // the new instance's Lab is told again
    this.generation = (this.generation || 0) + 1; // drops slices of a run in the old instance
    this.busy = true;
    clearTimeout(this.altTimer);
    setTimeout(() => {
      this.busy = false;
      if (this.lab && this.host.view === this) this.host.refresh(false);
    });
  }

  /// The engine's module did not load: the view says in words what happened and what to do,
  /// with the browser's own message behind a disclosure, and shows nothing that will not come.
  showLoadFailure(e) {
    this.dropFirstPicture();
    this.stopLoading();
    const words = e?.kind ? e.message : `The simulation could not load (${e?.message || e}). Reload the page; if this keeps happening, tell the course team.`;
    const detail = e?.detail ?? String(e?.message || e);
    this.loadFailure?.remove();
    this.loadFailure = el("div", { class: "load-failure", "data-load-failure": e?.kind ?? "file" },
      el("details", {}, el("summary", {}, "Technical detail"), el("pre", {}, detail)));
    setText(this.error, words);
    this.error.after(this.loadFailure);
    this.root.classList.add("failed");
  }

  /// The module has loaded (or failed): the loading line and the bytes' progress go.
  stopLoading() {
    loadProgress.listeners.delete(this.onLoadProgress);
    if (!this.loading) return;
    this.loading.remove();
    this.loading = undefined;
    this.progressBar.setAttribute("hidden", "");
    this.progressBar.setAttribute("aria-label", "Simulating");
    this.progressBar.setAttribute("aria-valuenow", "0");
    this.progressFill.style.transform = "";
  }

  destroy() {
    this.stopLoading();
    views.delete(this);
    this.stopPlay();
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
