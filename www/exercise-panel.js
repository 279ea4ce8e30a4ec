// The exercise panel of <checkpoint-lab>: prompt, answer, check, hint, reveal, feedback and
// progress. It ships beside the element as exercise-panel.js and is loaded with the exercises'
// WebAssembly module, only where a page shows exercises.

/// Where a student's progress on one exercise is kept between visits.
const progressKey = (id) => `checkpoint-lab:exercise:${id}`;
/// Beside it, the exercise the student was on in a sequence (its id), restored on the next visit.
const CURRENT_KEY = "checkpoint-lab:exercise-current";

/// localStorage, or nothing where the page may not use it (a sandboxed frame, storage disabled).
function storage() {
  try {
    return globalThis.localStorage ?? null;
  } catch {
    return null;
  }
}

/// The largest answer the panel reads, in magnitude: 10^15 (every integer up to it is exact).
const LARGEST_ANSWER = 1e15;

/// Reads a number as a lesson writes it: "30000", "30,000", "30 000" (commas or spaces between
/// groups of three digits), "30k", "2.5", "-3", "1e6". Returns { value } or { error } with the
/// words to show the student.
export function readNumber(input) {
  let text = String(input).trim().replace(/[\u00a0\u2009\u202f]/g, " ").replace(/^\u2212/, "-");
  if (text === "") return { error: "Type a number first." };
  let sign = 1;
  if (/^[-+]/.test(text)) {
    sign = text[0] === "-" ? -1 : 1;
    text = text.slice(1).trim();
  }
  let scale = 1;
  const thousands = /^(.*\d)\s*k$/i.exec(text);
  if (thousands) {
    text = thousands[1];
    scale = 1000;
  }
  const plain = /^(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(text);
  const grouped = /^\d{1,3}(,\d{3})+(\.\d+)?$/.test(text) || /^\d{1,3}( \d{3})+(\.\d+)?$/.test(text);
  if (!plain && !grouped) {
    return { error: `“${String(input).trim().slice(0, 40)}” is not a number this exercise can read: write it like 30000, 30,000, 30 000 or 30k, with a point before decimals.` };
  }
  const value = sign * scale * Number(text.replace(/[, ]/g, ""));
  if (!Number.isFinite(value) || Math.abs(value) > LARGEST_ANSWER) {
    return { error: `That number is out of range: answers here lie between −1,000,000,000,000,000 and 1,000,000,000,000,000 (10^15).` };
  }
  return { value };
}

/// The exercise panel: prompt, answer, check, hint, reveal, feedback and progress. Whether an
/// exercise is solved and how many attempts it took persist in localStorage per exercise id.
/// `tools` are the element's: its DOM helper (el), its option reader (listOption), the names of
/// its controls, the exercise catalogue, and the exercises' checks (check, reveal).
export function exercisePanel({ el, listOption, controls, catalogue, check, reveal }) {
  const setText = (node, text) => {
    if (node.textContent !== text) node.textContent = text;
  };
  return class ExercisePanel {
    constructor(view, ids) {
      this.view = view;
      this.ids = ids;
      this.index = 0;
      this.state = new Map();
      this.confirmingReset = false;
    }

    /// The index of the exercise the student was on last time, if this sequence holds it; else 0.
    rememberedIndex() {
      if (this.ids.length < 2) return 0;
      let id = null;
      try {
        id = storage()?.getItem(CURRENT_KEY) ?? null;
      } catch {
        // Storage refused: start at the first exercise.
      }
      const index = this.ids.indexOf(id);
      return index < 0 ? 0 : index;
    }

    /// Remembers the exercise the student is on (in a sequence; one exercise alone is not a place).
    remember() {
      if (this.ids.length < 2) return;
      try {
        storage()?.setItem(CURRENT_KEY, this.exercise.id);
      } catch {
        // Storage full or refused: the place lives for this visit only.
      }
    }

    get exercise() {
      return catalogue.get(this.ids[this.index]);
    }

    progress(id) {
      if (!this.state.has(id)) {
        const saved = this.load(id);
        this.state.set(id, { attempts: saved.attempts ?? 0, hints: 0, solved: saved.solved === true, revealed: false });
      }
      return this.state.get(id);
    }

    load(id) {
      try {
        const saved = JSON.parse(storage()?.getItem(progressKey(id)) ?? "{}");
        return saved && typeof saved === "object" ? saved : {};
      } catch {
        return {};
      }
    }

    /// Saves an exercise's progress merged with what storage holds now (another tab may have
    /// saved since this one read it): solved only goes from false to true, attempts keep the
    /// larger count. What is kept here follows the merge.
    save(id) {
      const p = this.progress(id);
      const stored = this.load(id);
      p.solved = p.solved || stored.solved === true;
      if (Number.isSafeInteger(stored.attempts) && stored.attempts > p.attempts) p.attempts = stored.attempts;
      try {
        storage()?.setItem(progressKey(id), JSON.stringify({ solved: p.solved, attempts: p.attempts }));
      } catch {
        // Storage full or refused: the progress lives for this visit only.
      }
    }

    /// Another tab saved or reset progress (the storage event): this panel follows, merged the
    /// same way; a reset there (the key removed) is a reset here. The student's place, draft
    /// and focus stay.
    followStorage(event) {
      if (this.view.panel !== this || !this.view.lab) {
        removeEventListener("storage", this.onStorage);
        return;
      }
      const ids = event.key === null ? this.ids : this.ids.filter((id) => progressKey(id) === event.key);
      if (!ids.length) return;
      for (const id of ids) {
        const p = this.progress(id);
        const stored = this.load(id);
        if (event.key !== null && event.newValue === null) {
          Object.assign(p, { attempts: 0, hints: 0, solved: false, revealed: false, revealText: undefined, verdict: undefined });
        } else {
          p.solved = p.solved || stored.solved === true;
          if (Number.isSafeInteger(stored.attempts) && stored.attempts > p.attempts) p.attempts = stored.attempts;
        }
      }
      this.show();
    }

    /// Forgets the progress of every exercise in this panel, here and in storage (after the
    /// student confirmed it in the panel).
    resetProgress() {
      this.confirmingReset = false;
      this.focusReset = true;
      for (const id of this.ids) {
        this.state.delete(id);
        try {
          storage()?.removeItem(progressKey(id));
        } catch {
          // Nothing stored.
        }
      }
      this.show();
    }

    /// The panel's parts that stay in place from one action to the next, built once: the
    /// progress line, the list, the buttons and the feedback (a live region that exists before
    /// its text changes). An action updates them in place, so the control the student pressed
    /// keeps focus and the feedback is announced.
    frame() {
      if (this.parts && this.parts.root.parentNode === this.view.exercisePanel) return this.parts;
      const view = this.view;
      const button = (label, action, onClick) => {
        const b = el("button", { type: "button", "data-exercise": action }, label);
        b.addEventListener("click", onClick);
        return b;
      };
      const parts = {};
      parts.progress = el("p", { class: "progress" });
      const top = [parts.progress];
      if (this.ids.length > 1) {
        // Jump to any exercise; solved ones are marked.
        const id = `${view.id}-exercise-list`;
        parts.list = el("select", { id, "data-exercise": "list" });
        this.ids.forEach((_, i) => parts.list.append(el("option", { value: String(i) })));
        parts.list.addEventListener("change", () => this.go(Number(parts.list.value)));
        top.push(el("p", { class: "exercise-list" }, el("label", { for: id }, "Go to exercise "), parts.list));
      }
      // The exercise itself (title, prompt, answer): written again when the exercise changes.
      parts.body = el("div", { class: "exercise-body" });
      parts.check = button("Check", "check", () => this.check());
      parts.hint = button("Hint", "hint", () => {
        const p = this.progress(this.exercise.id);
        p.hints = Math.min(p.hints + 1, this.exercise.hints.length);
        this.show();
      });
      parts.reveal = button("Reveal the answer", "reveal", () => this.reveal());
      parts.buttons = el("div", { class: "buttons" }, parts.check, parts.hint, parts.reveal);
      if (this.ids.length > 1) {
        parts.previous = button("Previous", "previous", () => this.go(this.index - 1));
        parts.next = button("Next", "next", () => this.go(this.index + 1));
        parts.buttons.append(parts.previous, parts.next);
      }
      parts.hints = el("ul", { class: "hints", hidden: "" });
      parts.feedback = el("p", { class: "feedback", role: "status", "aria-live": "polite", "data-exercise": "feedback" });
      parts.revealed = el("p", { class: "revealed", "data-exercise": "revealed", hidden: "" });
      parts.explanation = el("p", { class: "explanation", "data-exercise": "explanation", hidden: "" });
      parts.reset = el("div", { class: "reset" });
      parts.root = el("div", { class: "exercise-frame" }, ...top, parts.body, parts.buttons, parts.hints, parts.feedback, parts.revealed, parts.explanation, parts.reset);
      view.exercisePanel.replaceChildren(parts.root);
      if (!this.onStorage) {
        this.onStorage = (event) => this.followStorage(event);
        addEventListener("storage", this.onStorage);
      }
      this.parts = parts;
      this.shownIndex = undefined;
      return parts;
    }

    /// The exercise's title, prompt and answer control.
    writeBody(parts, ex, p) {
      const view = this.view;
      const children = [el("h3", { tabindex: "-1" }, ex.title), el("p", { class: "prompt" }, ex.prompt)];
      this.input = undefined;
      if (ex.kind === "number") {
        const id = `${view.id}-answer`;
        // Text, read by readNumber: a number field refuses "30,000" in some browsers.
        this.input = el("input", { id, type: "text", inputmode: "decimal", autocomplete: "off", spellcheck: "false", "data-exercise": "answer" });
        // The draft survives the panel's updates and a visit to another exercise.
        this.input.value = p.draft ?? "";
        this.input.addEventListener("input", () => { p.draft = this.input.value; });
        this.input.addEventListener("keydown", (event) => {
          if (event.key === "Enter") this.check();
        });
        children.push(el("p", {}, el("label", { for: id }, "Your answer "), this.input, ex.unit ? ` ${ex.unit}` : ""));
      } else if (ex.kind === "choice") {
        const fieldset = el("fieldset", {}, el("legend", {}, "Choose one"));
        for (const choice of ex.choices) {
          const id = `${view.id}-choice-${choice.id}`;
          const radio = el("input", { type: "radio", name: `${view.id}-choice`, id, value: choice.id, "data-exercise": "choice" });
          radio.checked = p.choice === choice.id;
          radio.addEventListener("change", () => { p.choice = choice.id; });
          fieldset.append(el("div", { class: "choice" }, radio, " ", el("label", { for: id }, choice.label)));
        }
        children.push(fieldset);
      } else {
        children.push(el("p", {}, "Set the controls below, then check your settings."));
      }
      parts.body.replaceChildren(...children);
    }

    show() {
      const view = this.view;
      const ex = this.exercise;
      const p = this.progress(ex.id);
      const panel = view.exercisePanel;
      panel.removeAttribute("hidden");
      const parts = this.frame();
      const focused = view.shadow.activeElement;
      const solvedCount = this.ids.filter((id) => this.progress(id).solved).length;
      setText(parts.progress, `Exercise ${this.index + 1} of ${this.ids.length} · ${solvedCount} solved`);
      if (parts.list) {
        this.ids.forEach((exId, i) => setText(parts.list.options[i], `${i + 1}. ${catalogue.get(exId).title}${this.progress(exId).solved ? " ✓" : ""}`));
        parts.list.value = String(this.index);
      }
      const changed = this.shownIndex !== this.index;
      if (changed) this.writeBody(parts, ex, p);
      this.shownIndex = this.index;
      if (parts.previous) {
        parts.previous.disabled = this.index === 0;
        parts.next.disabled = this.index === this.ids.length - 1;
      }
      const hints = ex.hints.slice(0, p.hints);
      if (parts.hints.childElementCount !== hints.length || changed) parts.hints.replaceChildren(...hints.map((h) => el("li", {}, h)));
      parts.hints.hidden = hints.length === 0;
      this.writeFeedback(p.verdict ? p.verdict.feedback : "", p.verdict ? (p.verdict.correct ? "right" : "wrong") : "", p.verdict?.mistake);
      setText(parts.revealed, p.revealText ? `Answer: ${p.revealText}` : "");
      parts.revealed.hidden = !p.revealText;
      setText(parts.explanation, p.solved || p.revealed ? ex.explanation : "");
      parts.explanation.hidden = !(p.solved || p.revealed);
      // Reset sits apart from the navigation and asks before it forgets anything.
      let focus;
      const resetButton = (label, action, onClick) => {
        const b = el("button", { type: "button", "data-exercise": action }, label);
        b.addEventListener("click", onClick);
        return b;
      };
      if (this.confirmingReset) {
        if (!parts.reset.querySelector("[data-exercise=reset-question]")) {
          const confirm = resetButton("Yes, reset", "reset-confirm", () => this.resetProgress());
          const cancel = resetButton("Cancel", "reset-cancel", () => this.cancelReset());
          const question = el("div", { class: "reset confirming", role: "group", "aria-labelledby": `${view.id}-reset-question`, "data-exercise": "reset-question" },
            el("p", { id: `${view.id}-reset-question` }, `Forget your progress on ${this.ids.length === 1 ? "this exercise" : `all ${this.ids.length} exercises`}: which you solved and how many attempts each took? This cannot be undone.`),
            el("div", { class: "buttons" }, confirm, cancel));
          question.addEventListener("keydown", (event) => {
            if (event.key === "Escape") this.cancelReset();
          });
          parts.reset.replaceChildren(question);
          focus = cancel;
        }
      } else {
        let ask = parts.reset.querySelector("[data-exercise=reset-progress]");
        if (!ask) {
          ask = resetButton("Reset progress…", "reset-progress", () => {
            this.confirmingReset = true;
            this.show();
          });
          parts.reset.replaceChildren(ask);
        }
        if (this.focusReset) focus = ask;
      }
      this.focusReset = false;
      // A pressed control that this update disabled (Next on the last exercise) or took away
      // hands focus to the exercise's title, deliberately, rather than to the page.
      if (!focus && focused && panel.contains(focused) && (focused.disabled || !focused.isConnected)) focus = parts.body.querySelector("h3");
      focus?.focus();
      // Until a prediction is made, the figures that give it away stay hidden.
      view.root.classList.toggle("predicting", ex.kind !== "set" && !(p.solved || p.revealed));
    }

    /// Writes the feedback into its live region (kept in place, so the new text is announced).
    writeFeedback(text, verdict = "wrong", mistake) {
      const feedback = this.parts.feedback;
      const className = `feedback${verdict ? ` ${verdict}` : ""}`;
      if (feedback.className !== className) feedback.className = className;
      if (Number.isInteger(mistake)) feedback.setAttribute("data-mistake", String(mistake));
      else feedback.removeAttribute("data-mistake");
      setText(feedback, text);
    }

    /// Keeps the progress: the question goes away and focus returns to the reset button.
    cancelReset() {
      this.confirmingReset = false;
      this.focusReset = true;
      this.show();
    }

    /// Loads exercise `index`: its start settings and the controls it uses.
    go(index) {
      if (index < 0 || index >= this.ids.length) return;
      this.index = index;
      this.confirmingReset = false;
      this.remember();
      const ex = this.exercise;
      const view = this.view;
      view.applySettings(ex.start || {});
      view.showControls([...(ex.kind === "set" ? listOption("controls", ex.controls || "interval state-size crash-at advanced", controls) : []), "cursor", "play", "description"]);
      view.update();
      this.show();
    }

    response() {
      const ex = this.exercise;
      if (ex.kind === "number") return readNumber(this.input.value);
      if (ex.kind === "choice") {
        const picked = this.view.exercisePanel.querySelector("input[type=radio]:checked");
        return picked ? picked.value : undefined;
      }
      return this.view.config();
    }

    check() {
      const ex = this.exercise;
      const p = this.progress(ex.id);
      let answer = this.response();
      if (answer === undefined) {
        this.writeFeedback("Pick an answer first.");
        return;
      }
      if (typeof answer === "object" && ex.kind === "number") {
        if (answer.error) {
          this.writeFeedback(answer.error);
          return;
        }
        answer = answer.value;
      }
      let verdict;
      try {
        verdict = check(ex, answer);
      } catch (e) {
        this.writeFeedback(String(e.message || e));
        return;
      }
      p.attempts += 1;
      p.verdict = verdict;
      if (verdict.correct) p.solved = true;
      this.save(ex.id);
      this.show();
      this.view.host.dispatchEvent(new CustomEvent("checkpointlab-exercise", {
        bubbles: true, composed: true, detail: { id: ex.id, correct: verdict.correct, attempts: p.attempts },
      }));
    }

    reveal() {
      const ex = this.exercise;
      const p = this.progress(ex.id);
      const shown = reveal(ex);
      p.revealed = true;
      p.revealText = shown.text;
      if (shown.settings) {
        this.view.applySettings({ ...(ex.start || {}), ...shown.settings });
        this.view.update();
      }
      this.show();
    }
  };
}
