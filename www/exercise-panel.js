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

/// The exercise panel: prompt, answer, check, hint, reveal, feedback and progress. Whether an
/// exercise is solved and how many attempts it took persist in localStorage per exercise id.
/// `tools` are the element's: its DOM helper (el), its option reader (listOption), the names of
/// its controls, the exercise catalogue, and the exercises' checks (check, reveal).
export function exercisePanel({ el, listOption, controls, catalogue, check, reveal }) {
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

    save(id) {
      const p = this.progress(id);
      try {
        storage()?.setItem(progressKey(id), JSON.stringify({ solved: p.solved, attempts: p.attempts }));
      } catch {
        // Storage full or refused: the progress lives for this visit only.
      }
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

    show() {
      const view = this.view;
      const ex = this.exercise;
      const p = this.progress(ex.id);
      const panel = view.exercisePanel;
      panel.removeAttribute("hidden");
      const solvedCount = this.ids.filter((id) => this.progress(id).solved).length;
      const children = [
        el("p", { class: "progress" }, `Exercise ${this.index + 1} of ${this.ids.length} · ${solvedCount} solved`),
      ];
      if (this.ids.length > 1) {
        // Jump to any exercise; solved ones are marked.
        const id = `${view.id}-exercise-list`;
        const list = el("select", { id, "data-exercise": "list" });
        this.ids.forEach((exId, i) => {
          const item = catalogue.get(exId);
          list.append(el("option", { value: String(i) }, `${i + 1}. ${item.title}${this.progress(exId).solved ? " ✓" : ""}`));
        });
        list.value = String(this.index);
        list.addEventListener("change", () => this.go(Number(list.value)));
        children.push(el("p", { class: "exercise-list" }, el("label", { for: id }, "Go to exercise "), list));
      }
      children.push(
        el("h3", {}, ex.title),
        el("p", { class: "prompt" }, ex.prompt),
      );
      this.input = undefined;
      if (ex.kind === "number") {
        const id = `${view.id}-answer`;
        this.input = el("input", { id, type: "number", step: "any", inputmode: "decimal", "data-exercise": "answer" });
        // The draft survives redraws of the panel (a hint, a check).
        this.input.value = p.draft ?? "";
        this.input.addEventListener("input", () => { p.draft = this.input.value; });
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
      const button = (label, action, onClick) => {
        const b = el("button", { type: "button", "data-exercise": action }, label);
        b.addEventListener("click", onClick);
        return b;
      };
      const buttons = el("div", { class: "buttons" },
        button("Check", "check", () => this.check()),
        button("Hint", "hint", () => { p.hints = Math.min(p.hints + 1, ex.hints.length); this.show(); }),
        button("Reveal the answer", "reveal", () => this.reveal()));
      if (this.ids.length > 1) {
        const previous = button("Previous", "previous", () => this.go(this.index - 1));
        const next = button("Next", "next", () => this.go(this.index + 1));
        if (this.index === 0) previous.disabled = true;
        if (this.index === this.ids.length - 1) next.disabled = true;
        buttons.append(previous, next);
      }
      children.push(buttons);
      if (p.hints > 0) children.push(el("ul", { class: "hints" }, ...ex.hints.slice(0, p.hints).map((h) => el("li", {}, h))));
      const feedbackAttributes = { class: `feedback${p.verdict ? (p.verdict.correct ? " right" : " wrong") : ""}`, role: "status", "data-exercise": "feedback" };
      // A wrong answer the exercise lists as a common mistake is diagnosed by that mistake's feedback.
      if (p.verdict && Number.isInteger(p.verdict.mistake)) feedbackAttributes["data-mistake"] = String(p.verdict.mistake);
      this.feedback = el("p", feedbackAttributes, p.verdict ? p.verdict.feedback : "");
      children.push(this.feedback);
      if (p.revealText) children.push(el("p", { class: "revealed", "data-exercise": "revealed" }, `Answer: ${p.revealText}`));
      if (p.solved || p.revealed) children.push(el("p", { class: "explanation", "data-exercise": "explanation" }, ex.explanation));
      // Reset sits apart from the navigation and asks before it forgets anything.
      let focus;
      if (this.confirmingReset) {
        const confirm = button("Yes, reset", "reset-confirm", () => this.resetProgress());
        const cancel = button("Cancel", "reset-cancel", () => this.cancelReset());
        const question = el("div", { class: "reset confirming", role: "group", "aria-labelledby": `${view.id}-reset-question`, "data-exercise": "reset-question" },
          el("p", { id: `${view.id}-reset-question` }, `Forget your progress on ${this.ids.length === 1 ? "this exercise" : `all ${this.ids.length} exercises`}: which you solved and how many attempts each took? This cannot be undone.`),
          el("div", { class: "buttons" }, confirm, cancel));
        question.addEventListener("keydown", (event) => {
          if (event.key === "Escape") this.cancelReset();
        });
        children.push(question);
        focus = cancel;
      } else {
        const ask = button("Reset progress…", "reset-progress", () => {
          this.confirmingReset = true;
          this.show();
        });
        children.push(el("div", { class: "reset" }, ask));
        if (this.focusReset) focus = ask;
      }
      this.focusReset = false;
      panel.replaceChildren(...children);
      focus?.focus();
      // Until a prediction is made, the figures that give it away stay hidden.
      view.root.classList.toggle("predicting", ex.kind !== "set" && !(p.solved || p.revealed));
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
      if (ex.kind === "number") {
        const text = this.input.value.trim();
        return text === "" ? NaN : Number(text);
      }
      if (ex.kind === "choice") {
        const picked = this.view.exercisePanel.querySelector("input[type=radio]:checked");
        return picked ? picked.value : undefined;
      }
      return this.view.config();
    }

    check() {
      const ex = this.exercise;
      const p = this.progress(ex.id);
      const answer = this.response();
      if (answer === undefined || (typeof answer === "number" && !Number.isFinite(answer))) {
        this.feedback.textContent = ex.kind === "number" ? "Type a number first." : "Pick an answer first.";
        this.feedback.className = "feedback wrong";
        return;
      }
      let verdict;
      try {
        verdict = check(ex, answer);
      } catch (e) {
        this.feedback.textContent = String(e.message || e);
        this.feedback.className = "feedback wrong";
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
