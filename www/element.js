// <checkpoint-lab>: the lesson component. Ships in pkg/ as checkpoint-lab.js (this file bundled
// with the view, the scheduler, the engine's loader and the API) next to the wasm glue; a page
// needs nothing else. Everything it shows lives in its shadow root, text goes in through
// textContent only, and its styles (checkpoint-lab.css) are bundled into this module. This file is the
// element's life: its attributes and options, connecting and disconnecting, exercises, events.
import { SETTINGS, SCENARIOS, SINKS } from "./settings.js";
import { ALL_CONTROLS, ALL_VIEWS, VIEW_OPTIONS, THEMES, TAG, describeValue, textOption, listOption } from "./shared.js";
import {
  load, forgetLoad, labLoaded, parseAttributes, firstChartNow, loadFirstChart, FIRST_CHART_PATIENCE_MS, FIRST_CHART_MODULE,
  drawingFirstChart, firstChartsDrawn,
  loadExercises, exercises, exerciseCatalogue, BUILTIN_IDS, namesExercises, yieldToPage,
} from "./engine.js";
import { registerExercises } from "./api.js";
import { LabView } from "./lab-view.js";

export * from "./api.js";

const CONFIG_ATTRIBUTES = new Set(SETTINGS.map((s) => s.attribute));

/// The turns of the figures that build their views later (see waitsItsTurn): each in a task of
/// its own, in the order they were connected (the page's order), one after the other.
let turns = Promise.resolve();
function buildTurn() {
  turns = turns.then(yieldToPage);
  return turns;
}
const OBSERVED = [...CONFIG_ATTRIBUTES, "sink", "scenario", "controls", "exercise", "exercises", "exercises-src", "theme", "charts", "cursor"];

/// The custom element. Attributes configure it; changing one re-runs and redraws.
/// Outside a browser (a site's build step evaluating modules in Node) there is no HTMLElement:
/// importing this module then defines nothing and touches nothing.
const ElementBase = globalThis.HTMLElement ?? class {};

export class CheckpointLabElement extends ElementBase {
  static observedAttributes = OBSERVED;
  /// Marks the component, so that a second copy of the package on a page (which finds the name
  /// defined by the first) is told from a host's own element.
  static [Symbol.for("checkpoint-lab.element")] = true;

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
    let builtNow = !this.built;
    // An inline figure below the viewport builds its view in a task of its own (see buildTurn).
    const waited = builtNow && this.waitsItsTurn();
    if (waited) {
      await buildTurn();
      if (!this.isConnected || this.view) return;
      builtNow = !this.built;
    }
    // The first chart's module is compiled (or, compiled by the page already, instantiated)
    // while the view is built and laid out: asked for after, it would wait for that frame's
    // rendering too.
    if (builtNow && !this.firstPictureFits() && !this.drawsFirstChartItself() && !firstChartNow()) loadFirstChart().catch(() => {});
    if (builtNow) {
      this.built = new LabView(this, this.shadowRoot);
      this.layOutBuilt();
      if (!this.firstPictureFits()) this.built.dropFirstPicture();
      const drawn = this.pageDrewFirstChart();
      // The controls' readouts are written by the first chart's module, which the head ran.
      if (drawn && firstChartNow()) this.built.showFirstChart(drawn, this.getAttribute("scenario") || "lesson", this.getAttribute("sink"), drawn.at, "page");
      // Laid out in its own task too, not with the views built since the last frame in that
      // frame's rendering.
      if (waited) this.getBoundingClientRect();
    }
    // Where no picture of the first frame stands, the first chart's module draws it before the
    // lab's module is fetched; a module (or styles) slower than FIRST_CHART_PATIENCE_MS no longer
    // holds the lab back, and draws only if it still comes first.
    if (builtNow && !this.firstPictureFits() && !this.drawsFirstChartItself()) {
      await drawingFirstChart(Promise.race([this.drawFirstChart(), new Promise((resolve) => setTimeout(resolve, FIRST_CHART_PATIENCE_MS))]));
    } else if (builtNow) {
      // Another element's first chart comes first (see drawingFirstChart).
      await firstChartsDrawn();
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
      this.built.showLoadFailure(e);
      forgetLoad();
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
    // Re-inserted after a removal: the student's settings and cursor come back (see
    // disconnectedCallback), unless the page changed an attribute meanwhile.
    const kept = this.kept;
    this.kept = undefined;
    this.view.kept = kept;
    try {
      this.apply(false, kept);
    } catch (e) {
      if (!this.drawTheRest(e, false)) {
        this.firstError = e;
        this.view.dropFirstPicture();
        this.view.error.textContent = String(e.message || e);
        this.markReady();
      }
    }
    if (loadError) {
      // Shown until the page is loaded again: runs that finish later show it too.
      this.view.sourceError = String(loadError.message || loadError);
      this.view.error.textContent = this.view.sourceError;
    }
  }

  /// Whether this element builds its view after the others defined with it, in a task of its
  /// own: an inline figure (it names its charts or controls) whose box starts below the viewport.
  /// A page of ten figures then never builds and lays out ten views in the task that defines the
  /// element; those in view (or above it) are built at once, so the first screen has its final
  /// height from its first frame, and one below the viewport moves nothing in view as it grows.
  waitsItsTurn() {
    if (this.initialOptions || !["charts", "controls"].some((name) => this.hasAttribute(name))) return false;
    return this.getBoundingClientRect().top >= (globalThis.innerHeight || 0);
  }

  /// Before the first run: the built view shows only the parts `controls` and `charts` (or
  /// mount()'s options) name, as the run will, so the element has its final height from its
  /// first frame and nothing moves when the engine's module arrives. A value the run will refuse
  /// leaves the view as it is (the run says what is wrong).
  layOutBuilt() {
    const view = this.built;
    if (!view) return;
    const options = this.initialOptions ?? {};
    const list = (name, known) => {
      try {
        return listOption(name, options[name] ?? this.getAttribute(name), known);
      } catch {
        return undefined;
      }
    };
    const controls = list("controls", ALL_CONTROLS);
    const charts = list("charts", ALL_VIEWS);
    // The whole lab: every control, every chart and the export panel, built now (a view builds
    // only the parts it shows), so it has its final height from its first frame too.
    if (controls === undefined && charts === undefined && !view.laidOut) {
      view.showControls(undefined);
      view.showViews(undefined);
      return;
    }
    view.laidOut = true;
    view.showControls(controls);
    view.showViews(charts);
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
        // What the student set, kept for a re-insertion (a page moving the element, a tab
        // component hiding it): the controls' settings and the cursor.
        const view = this.view;
        // Removed again before it had drawn: what it was given to show.
        this.kept = view.summary ? { settings: view.config(), cursorMs: view.cursorS !== undefined ? view.cursorMs() : undefined } : view.kept;
        view.destroy();
        this.view = undefined;
        // Ready again only once the new view has drawn.
        delete this.dataset.ready;
      }
    });
  }

  attributeChangedCallback(name, previous, value) {
    // An attribute the page sets again is read again; one set while the element was out of the
    // document wins over the settings the student left there.
    this.ignored?.delete(name);
    if (!this.view) this.kept = undefined;
    if (this.view && !this.ignored?.size) this.view.settingsError = undefined;
    // Before the first run, any setting or view attribute set may change the first picture.
    if (!this.view) {
      if (name === "controls" || name === "charts") this.layOutBuilt();
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
  settingAttributes(all = false) {
    const attributes = {};
    for (const name of this.getAttributeNames()) {
      if (CONFIG_ATTRIBUTES.has(name) && (all || !this.ignored?.has(name))) attributes[name] = this.getAttribute(name);
    }
    return attributes;
  }

  /// After apply() threw `e`: where setting attributes are what the engine refuses (a shared link
  /// with a bad value), runs the rest of them with those at their defaults (or, if the rest does
  /// not run together, the lesson's defaults) and says which, naming every bad one; the message
  /// stays over later runs until the page sets those attributes again. Returns whether it ran.
  drawTheRest(e, cause) {
    const bad = Object.keys(this.view.options).length ? [] : this.badAttributes();
    if (!bad.length) return false;
    let allDefaults = false;
    this.ignored = new Set(bad.map(([name]) => name));
    try {
      this.apply(cause);
    } catch {
      this.ignored = new Set(Object.keys(this.settingAttributes(true)));
      try {
        this.apply(cause);
        allDefaults = true;
      } catch {
        this.ignored = undefined;
        return false;
      }
    }
    const instead = allDefaults ? "The lab shows the lesson's defaults instead."
      : `The lab shows ${bad.length === 1 ? "that setting" : "those settings"} at the lesson's default${bad.length === 1 ? "" : "s"} instead.`;
    this.view.settingsError = `${bad.map(([, text]) => text).join("; ")}. ${instead}`;
    this.view.error.textContent = this.view.settingsError;
    return true;
  }

  /// The setting attributes the engine refuses, each alone: [[name, message], ...].
  badAttributes() {
    const bad = [];
    for (const [name, value] of Object.entries(this.settingAttributes(true))) {
      try {
        parseAttributes({ [name]: value });
      } catch (e) {
        bad.push([name, String(e.message || e)]);
      }
    }
    return bad;
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
  apply(cause, kept) {
    const view = this.view;
    const described = this.describedConfig();
    const { scenarioName } = described;
    const config = kept ? { ...described.config, ...kept.settings } : described.config;
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
    const cursor = kept?.cursorMs ?? view.options.cursor ?? this.getAttribute("cursor") ?? undefined;
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
      // A sequence opens where the student was on the last visit.
      view.panel.go(view.panel.rememberedIndex());
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
      if (this.drawTheRest(e, cause)) return;
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

if (globalThis.customElements) {
  const taken = customElements.get("checkpoint-lab");
  if (!taken) {
    customElements.define("checkpoint-lab", CheckpointLabElement);
  } else if (!taken[Symbol.for("checkpoint-lab.element")]) {
    // A host page defined the name first, with an element of its own: its elements are not
    // this component. Say so where the page's author looks, with the way that still works:
    // mount() makes the component under a name of its own.
    TAG.name = "checkpoint-lab-mounted";
    if (!customElements.get(TAG.name)) customElements.define(TAG.name, CheckpointLabElement);
    console.error("checkpoint-lab: the name <checkpoint-lab> is already defined on this page by another script, so these elements are not the lab and show nothing. Remove the other definition, or use mount(element, options) from this module, which does not need the name.");
  }
}
