// A lab's controls, built from the settings table (www/settings.js): a slider over a setting's
// steps that keeps the exact value it was given, or a select for a choice. LabView
// (lab-view.js) makes one per setting and puts them where its view shows them.
//
// A control is its value first and its DOM second: the value, steps, readout, label and enabled
// state are kept on the control, and its row (label, input, readout) is built by build() the
// first time the view shows it. An inline figure shows one or two controls of the twenty-odd
// settings the lab runs on, so it builds only those (building every one, hidden, was most of
// what a figure cost to build); the whole lab builds them all.
import { el, nearest, setText } from "./shared.js";

/// The values a slider stops at, from the engine's steps (a list, or a range with its step).
export function stepValues(steps) {
  if (steps.kind === "values") return steps.values;
  if (steps.kind !== "range") return [];
  const out = [];
  for (let t = steps.from; t <= steps.to; t += steps.every) out.push(t);
  return out;
}

/// A slider over a setting's steps that keeps the exact value it was given: a valid value
/// between two steps runs as given, the thumb sits on the nearest step and the readout shows
/// the exact value. Moving the thumb picks that step. Its row is built by build().
export function slider(prefix, setting, values) {
  const name = setting.attribute;
  const id = `${prefix}-${name}`;
  const made = {
    setting, values, exact: values[0], label: setting.label, disabled: false, text: undefined,
    row: undefined, input: undefined, labelEl: undefined, out: undefined,
    get: () => made.exact,
    set: (v) => {
      made.exact = v;
      if (made.input) made.input.value = String(nearest(made.values, v));
    },
    /// New steps (the crash slider follows the horizon); the exact value stays.
    steps: (next) => {
      made.values = next;
      if (made.input) made.input.max = String(next.length - 1);
      made.set(made.exact);
    },
    /// The readout, and the same words for assistive technology (a slider's value is its
    /// step's position otherwise: "7").
    show: (text) => {
      made.text = text;
      if (!made.input) return;
      setText(made.out, text);
      if (made.input.getAttribute("aria-valuetext") !== text) made.input.setAttribute("aria-valuetext", text);
    },
    /// The label and enabled state the engine gives for the current values.
    describe: (label, disabled) => describe(made, label, disabled),
    /// The row, built the first time: label, slider and readout as the control stands.
    build: () => {
      if (made.row) return made.row;
      const input = el("input", { id, type: "range", min: "0", max: String(made.values.length - 1), step: "1", "data-control": name });
      made.out = el("output", { for: id, class: "readout" });
      made.labelEl = el("label", { for: id }, made.label);
      made.row = el("div", { class: "control" }, made.labelEl, input, made.out);
      made.input = input;
      input.value = String(nearest(made.values, made.exact));
      if (made.disabled) input.disabled = true;
      if (made.text !== undefined) made.show(made.text);
      // The readout follows when the run starts (see startRun), after the charts when they are
      // drawn in the input's own task.
      input.addEventListener("input", () => {
        made.exact = made.values[Number(input.value)];
        // Moving the slider of an optional setting set to none (the crash) brings it back.
        made.none = false;
      });
      return made.row;
    },
  };
  return made;
}

/// The control for one setting of the table: a select for a choice, else a slider.
export function control(prefix, setting) {
  if (setting.unit.kind === "choice") {
    return select(prefix, setting.attribute, setting.label, setting.unit.choices.map((c) => [c.value, c.label]));
  }
  return slider(prefix, setting, stepValues(setting.default_steps));
}

/// A select of `options` ([value, text] pairs) named `name`, with its label. Until its row is
/// built (build()), it keeps its value as the built select would: the first option's at first,
/// "" after a value none of its options has.
export function select(prefix, name, label, options) {
  const id = `${prefix}-${name}`;
  const made = {
    options: options.map(([value, text]) => [String(value), text]),
    value: options.length ? String(options[0][0]) : "",
    label, disabled: false,
    row: undefined, input: undefined, labelEl: undefined,
    get: () => (made.input ? made.input.value : made.value),
    set: (v) => {
      if (made.input) {
        made.input.value = String(v);
        return;
      }
      made.value = made.options.some(([value]) => value === String(v)) ? String(v) : "";
    },
    /// Replaces the options (the windows of a run); as in a select, the first one is then chosen.
    replaceOptions: (next) => {
      made.options = next.map(([value, text]) => [String(value), text]);
      made.value = made.options.length ? made.options[0][0] : "";
      if (made.input) made.input.replaceChildren(...made.options.map(([value, text]) => el("option", { value }, text)));
    },
    /// The text of the option `value`, as the engine words it for the current values.
    nameOption: (value, text) => {
      const option = made.options.find(([v]) => v === String(value));
      if (!option || option[1] === text) return;
      option[1] = text;
      const node = made.input?.querySelector(`option[value="${option[0]}"]`);
      if (node) setText(node, text);
    },
    describe: (text, disabled) => describe(made, text, disabled),
    build: () => {
      if (made.row) return made.row;
      const input = el("select", { id, "data-control": name });
      for (const [value, text] of made.options) input.append(el("option", { value }, text));
      made.labelEl = el("label", { for: id }, made.label);
      made.row = el("div", { class: "control control-select" }, made.labelEl, input);
      made.input = input;
      input.value = made.value;
      if (made.disabled) input.disabled = true;
      return made.row;
    },
  };
  return made;
}

/// Sets a control's label and enabled state, and its row's where it is built.
function describe(made, label, disabled) {
  made.label = label;
  made.disabled = disabled;
  if (made.labelEl) setText(made.labelEl, label);
  if (made.input && made.input.disabled !== disabled) made.input.disabled = disabled;
}

/// Puts `rows` into `parent` in this order, moving only those out of place (moving a row would
/// take the focus from its input).
export function place(parent, rows) {
  let next = null;
  for (let i = rows.length - 1; i >= 0; i--) {
    if (rows[i].parentNode !== parent || rows[i].nextSibling !== next) parent.insertBefore(rows[i], next);
    next = rows[i];
  }
}
