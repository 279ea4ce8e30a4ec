// The scenario time a lab shows: the cursor bar under the pipeline view (its slider, the event
// buttons, Play and the spoken description), and the time charts a click, a drag or a hover
// moves it on. LabView (lab-view.js) builds on it.
import { TIME_CHARTS, CRASH_SETTING, BARRIER_SETTING } from "./settings.js";
import { el, setText } from "./shared.js";
import { formatValue } from "./engine.js";
import { Scheduler } from "./scheduler.js";

const clock = (ms) => formatValue("clock_ms", ms);
/// How long the spoken description of the pipeline waits between two updates while the cursor moves.
const DESCRIBE_EVERY_MS = 600;
/// While Play runs, the pipeline view is drawn every frame; the time charts' cursor marks at most
/// this often.
const PLAY_TIME_CHARTS_EVERY_MS = 50;
/// How many times a figure's autoplay shows its loop before it stops where the loop ends (Play
/// starts it again): enough to watch it, not a canvas redrawn every frame for as long as the tab
/// stays open.
const AUTOPLAY_LOOPS = 3;
/// With reduced motion, Play shows each event this long before it jumps to the next.
const PLAY_EVENT_EVERY_MS = 1500;

/// What keeps the spoken description's place before the engine has written it: a description as
/// long as the engine writes one a second after the lesson's crash (its longest kind: restoring,
/// the readers stopped, every sink's counts). Laid out, never shown, under the description, it
/// makes the description's box that tall at the view's width from the first frame, so the text
/// written once the engine has run (of that length or shorter) moves nothing below it.
const DESCRIPTION_PLACE = "10:00:46. Status: down since 10:00:45: the failure is not detected yet; checkpoint 42 will be "
  + "restored. To restore: checkpoint 42. Last completed checkpoint: 42. Readers stopped at offset 1,090,000 (per "
  + "partition 90,833 to 90,834), log end 1,092,000, lag 2,000 events. Sinks so far: append-only 4,500 rows, 0 "
  + "duplicates; upsert 100 rows, 0 duplicates; transactional 3,000 rows, 0 duplicates; dedupe view 100 rows, 0 duplicates.";

export class Cursor extends Scheduler {
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
    // Not a ".control" (those are settings); the `controls` option names its parts "cursor" (the
    // time and the event buttons), "play" (Play and its speed) and "description".
    const time = el("div", { class: "cursor-control" }, el("label", { for: id }, "Scenario time"), this.cursorInput, this.cursorOut);
    this.speed.row.className = "cursor-speed";
    const buttons = el("div", { class: "cursor-buttons" }, this.previousEvent, this.play, this.nextEvent, this.speed.row);
    // The description and, in the same grid cell, its place (see DESCRIPTION_PLACE).
    const place = el("p", { class: "description-place", "aria-hidden": "true" }, DESCRIPTION_PLACE);
    const description = el("div", { class: "description-box" }, place, this.description);
    this.cursorParts = { cursor: [time, this.previousEvent, this.nextEvent], play: [this.play, this.speed.row], description: [description] };
    this.cursorInput.addEventListener("input", () => this.setCursor(Number(this.cursorInput.value)));
    this.previousEvent.addEventListener("click", () => this.stepEvent(-1));
    this.nextEvent.addEventListener("click", () => this.stepEvent(1));
    this.cursorBar = el("div", { class: "cursor-bar", role: "group", "aria-label": "Scenario time" }, time, buttons);
    return el("div", {}, this.cursorBar, description);
  }

  /// Milliseconds since the scenario start where the cursor stands (before the student moves it:
  /// the crash, or the first barrier and a second).
  cursorMs() {
    if (this.cursorS !== undefined) return Math.round(this.cursorS * 1000);
    return this.summary ? this.defaultCursorMs ?? this.lab.default_cursor() : 0;
  }

  /// Moves the cursor to `ms` since the scenario start: the pipeline view, the time charts' marks,
  /// the control and (throttled) the description follow.
  setCursor(ms) {
    if (this.player?.loop) {
      this.autoplayStopped = true;
      this.stopPlay();
    }
    if (!this.placeCursor(ms)) return;
    this.requestDraw(["pipeline", ...TIME_CHARTS]);
  }

  /// Moves the cursor to `ms` as setCursor does, leaving the drawing to the caller; false when
  /// there is no run to move it on.
  placeCursor(ms) {
    if (!this.summary || !Number.isFinite(ms)) return false;
    const clamped = Math.min(Math.max(0, ms), this.horizonMs);
    this.cursorS = clamped / 1000;
    // Moved by the student: a cursor the page wrote relative to the crash no longer follows it.
    this.cursorSource = undefined;
    this.showCursor();
    this.host.dispatchEvent(new CustomEvent("checkpointlab-cursor", {
      bubbles: true, composed: true, detail: { ms: clamped, at: clock(this.startMs + clamped) },
    }));
    return true;
  }

  /// Reads a time ("10:00:58" or ms since the scenario start) and moves the cursor there; throws an
  /// Error naming `cursor` when it is not a time of this run.
  seek(time) {
    if (!this.summary) throw new Error("cursor: the lab has not run yet");
    this.setCursor(this.lab.cursor(time));
    // Read again after each run: a time relative to the crash ("crash+1s") follows the crash.
    this.cursorSource = time;
    this.flushDraw();
  }

  /// The control, its readout and the description at the cursor.
  showCursor() {
    const ms = this.cursorMs();
    // Each written only when it changed: an attribute written, even to its value, makes the
    // browser recompute the input's style.
    if (this.cursorInput.max !== String(this.horizonMs)) this.cursorInput.max = String(this.horizonMs);
    if (this.cursorInput.value !== String(ms)) this.cursorInput.value = String(ms);
    const text = clock(this.startMs + ms);
    setText(this.cursorOut, text);
    if (this.cursorInput.getAttribute("aria-valuetext") !== text) this.cursorInput.setAttribute("aria-valuetext", text);
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
    setText(this.description, world.description);
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
        readout.textContent = world.readout;
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
        const crash = this.c[CRASH_SETTING].none ? undefined : this.c[CRASH_SETTING].get();
        if (!["replay", "checkpoints"].includes(name) || !axis || crash === undefined) return false;
        const rect = canvas.getBoundingClientRect();
        const ratio = canvas.width / Math.max(1, rect.width);
        const crashX = axis.x0 + (((crash - this.startMs) / 1000 - axis.from_s) / (axis.to_s - axis.from_s)) * (axis.x1 - axis.x0);
        return Math.abs((event.clientX - rect.left) * ratio - crashX) <= 6 * ratio;
      };
      // On the checkpoint timeline a barrier on the interval's schedule can be dragged too: the
      // interval becomes the one that puts it where it is let go (lesson::view::barrier_near).
      let draggingBarrier;
      const nearBarrier = (event) => {
        const axis = this.axes[name];
        if (name !== "checkpoints" || !axis || !this.lab) return undefined;
        const rect = canvas.getBoundingClientRect();
        const msPerCssPx = ((axis.to_s - axis.from_s) * 1000) / Math.max(1, (axis.x1 - axis.x0) / (canvas.width / Math.max(1, rect.width)));
        return this.lab.barrier_near(timeAt(event), 6 * msPerCssPx) ?? undefined;
      };
      canvas.addEventListener("pointerdown", (event) => {
        const ms = timeAt(event);
        if (ms === undefined) return;
        canvas.setPointerCapture?.(event.pointerId);
        if (nearCrash(event)) {
          draggingCrash = true;
          return;
        }
        draggingBarrier = nearBarrier(event);
        if (draggingBarrier !== undefined) return;
        this.setCursor(ms);
        show(ms, event);
      });
      canvas.addEventListener("pointermove", (event) => {
        const ms = timeAt(event);
        if (ms === undefined || !this.summary) return;
        const dragging = draggingCrash || draggingBarrier !== undefined;
        canvas.style.cursor = dragging || nearCrash(event) || nearBarrier(event) !== undefined ? "ew-resize" : "";
        if (draggingCrash) {
          readout.textContent = `crash at ${clock(this.startMs + Math.round(ms / 1000) * 1000)}`;
          readout.removeAttribute("hidden");
          return;
        }
        if (draggingBarrier !== undefined) {
          const interval = this.lab.interval_for_barrier(draggingBarrier, ms);
          readout.textContent = `checkpoint interval ${formatValue("duration_ms", interval)}`;
          readout.removeAttribute("hidden");
          return;
        }
        this.setCursor(ms);
        show(ms, event);
      });
      canvas.addEventListener("pointerup", (event) => {
        const ms = timeAt(event);
        if (draggingBarrier !== undefined) {
          const barrier = draggingBarrier;
          draggingBarrier = undefined;
          if (ms === undefined) return;
          this.c[BARRIER_SETTING].set(this.lab.interval_for_barrier(barrier, ms));
          this.schedule("input");
          return;
        }
        if (!draggingCrash) return;
        draggingCrash = false;
        if (ms === undefined) return;
        this.crashAt(ms);
      });
      // A double click on a chart over the clock crashes the job there.
      canvas.addEventListener("dblclick", (event) => {
        const ms = timeAt(event);
        if (ms !== undefined) this.crashAt(ms);
      });
      canvas.addEventListener("pointerleave", () => readout.setAttribute("hidden", ""));
      canvas.addEventListener("focus", () => this.summary && show(this.cursorMs()));
      canvas.addEventListener("blur", () => readout.setAttribute("hidden", ""));
      this.readouts = { ...(this.readouts || {}), [name]: show };
    }
    if (name === "pipeline") {
      // A click on the source log crashes the job there: the log's width is a page of the clock.
      const onLog = (event) => {
        const axis = this.axes.pipeline;
        if (!axis || !this.summary) return undefined;
        const rect = canvas.getBoundingClientRect();
        const ratio = canvas.width / Math.max(1, rect.width);
        const [x, y] = [(event.clientX - rect.left) * ratio, (event.clientY - rect.top) * ratio];
        return y >= axis.y0 && y <= axis.y1 ? timeAt(event) : undefined;
      };
      canvas.addEventListener("pointermove", (event) => {
        const on = onLog(event) !== undefined;
        canvas.style.cursor = on ? "crosshair" : "";
        canvas.title = on ? "Click to crash the job here" : "";
      });
      canvas.addEventListener("click", (event) => {
        const ms = onLog(event);
        if (ms === undefined) return;
        if (this.player) {
          this.autoplayStopped = true;
          this.stopPlay();
        }
        // The picture then shows the job one second after its new crash.
        this.pendingCursor = "crash+1s";
        this.crashAt(ms);
      });
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

  /// Play moves the cursor through the run at the chosen speed, a step every animation frame of
  /// the display (as long as the frame took, times the speed), drawing the pipeline view each
  /// frame and the time charts' marks every PLAY_TIME_CHARTS_EVERY_MS; with prefers-reduced-motion
  /// it jumps from event to event instead.
  /// With `loop` (a figure's autoplay), it plays the view's loop (lesson::view's play_loop_ms)
  /// over and over.
  togglePlay(loop = false) {
    if (this.player) {
      this.stopPlay();
      this.flushDraw();
      return;
    }
    if (!this.summary) return;
    const [loopFrom, loopTo] = loop ? this.playLoopMs : [0, this.horizonMs];
    const end = loopTo;
    const now = this.cursorMs();
    const from = now >= loopFrom && now < end - 1000 ? now : loopFrom;
    if (this.reducedMotion.matches) {
      this.player = { jumps: setInterval(() => {
        const before = this.cursorMs();
        this.stepEvent(1);
        if (this.cursorMs() === before) this.togglePlay();
      }, PLAY_EVENT_EVERY_MS) };
      this.stepEvent(1);
    } else {
      const speed = Number(this.speed.get());
      const player = { cursorMs: from, frameAt: undefined, chartsAt: -Infinity, loop };
      const frame = (at) => {
        if (this.player !== player) return;
        // A frame long delayed (a hidden tab) moves the cursor as far as a tenth of a second would.
        const elapsed = player.frameAt === undefined ? 0 : Math.min(Math.max(0, at - player.frameAt), 100);
        player.frameAt = at;
        player.cursorMs = Math.min(end, player.cursorMs + elapsed * speed);
        if (this.placeCursor(player.cursorMs)) {
          const charts = at - player.chartsAt >= PLAY_TIME_CHARTS_EVERY_MS ? ["pipeline", ...TIME_CHARTS] : ["pipeline"];
          if (charts.length > 1) player.chartsAt = at;
          for (const name of charts) this.dirty.delete(name);
          this.drawCharts(charts);
        }
        if (player.cursorMs >= end && loop && ++this.autoplayLoops < AUTOPLAY_LOOPS) {
          player.cursorMs = loopFrom;
        } else if (player.cursorMs >= end) {
          if (loop) this.autoplayStopped = true;
          this.togglePlay();
          return;
        }
        player.frame = requestAnimationFrame(frame);
      };
      this.player = player;
      player.frame = requestAnimationFrame(frame);
    }
    // A toggle button keeps its name: "Play", pressed while it plays (a name that changed to
    // "Pause" as well would read "Pause, pressed").
    this.play.setAttribute("aria-pressed", "true");
  }

  /// Crashes the job at `ms` since the start, to the second, within the crash slider's range, and
  /// runs again.
  crashAt(ms) {
    const crash = this.c[CRASH_SETTING];
    const wanted = this.startMs + Math.round(ms / 1000) * 1000;
    crash.set(Math.min(Math.max(wanted, crash.values[0]), crash.values[crash.values.length - 1]));
    crash.none = false;
    this.schedule("input");
  }

  /// A figure with the `autoplay` attribute plays its loop by itself, AUTOPLAY_LOOPS times, while
  /// its pipeline view is in view, unless the reader prefers reduced motion; the student's first
  /// touch of its time (Play, the time slider, the event buttons, a click on a chart) stops it for
  /// good.
  autoplay(inView = this.nearView?.get(this.charts.pipeline?.canvas) !== false) {
    if (!this.host.hasAttribute("autoplay") || this.autoplayStopped || !this.playLoopMs || this.reducedMotion.matches) return;
    this.autoplayLoops ??= 0;
    if (inView && !this.player) this.togglePlay(true);
    else if (!inView && this.player?.loop) this.stopPlay();
  }

  /// Stops Play where the cursor stands.
  stopPlay() {
    if (!this.player) return;
    cancelAnimationFrame(this.player.frame);
    clearInterval(this.player.jumps);
    this.player = undefined;
    this.play.setAttribute("aria-pressed", "false");
  }
}
