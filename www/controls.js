// A lab's controls, built from the settings table (www/settings.js): a slider over a setting's
// steps that keeps the exact value it was given, or a select for a choice. LabView
// (lab-view.js) builds one per setting and puts them where its view shows them.
import { el, nearest } from "./shared.js";

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
/// the exact value. Moving the thumb picks that step.
export function slider(prefix, setting, values) {
  const name = setting.attribute;
  const id = `${prefix}-${name}`;
  const input = el("input", { id, type: "range", min: "0", max: String(values.length - 1), step: "1", "data-control": name });
  const out = el("output", { for: id, class: "readout" });
  const labelEl = el("label", { for: id }, setting.label);
  const row = el("div", { class: "control" }, labelEl, input, out);
  const made = {
    row, input, labelEl, setting, values, exact: values[0],
    get: () => made.exact,
    set: (v) => { made.exact = v; input.value = String(nearest(made.values, v)); },
    /// New steps (the crash slider follows the horizon); the exact value stays.
    steps: (next) => { made.values = next; input.max = String(next.length - 1); made.set(made.exact); },
    /// The readout, and the same words for assistive technology (a slider's value is its
    /// step's position otherwise: "7").
    show: (text) => {
      if (out.textContent !== text) out.textContent = text;
      if (input.getAttribute("aria-valuetext") !== text) input.setAttribute("aria-valuetext", text);
    },
  };
  // The readout follows when the run starts (see startRun), after the charts when they are
  // drawn in the input's own task.
  input.addEventListener("input", () => {
    made.exact = made.values[Number(input.value)];
    // Moving the slider of an optional setting set to none (the crash) brings it back.
    made.none = false;
  });
  return made;
}

/// The control for one setting of the table: a select for a choice, else a slider.
export function control(prefix, setting) {
  if (setting.unit.kind === "choice") {
    const made = select(prefix, setting.attribute, setting.label, setting.unit.choices.map((c) => [c.value, c.label]));
    made.labelEl = made.row.querySelector("label");
    return made;
  }
  return slider(prefix, setting, stepValues(setting.default_steps));
}

/// A select of `options` ([value, text] pairs) named `name`, with its label.
export function select(prefix, name, label, options) {
  const id = `${prefix}-${name}`;
  const input = el("select", { id, "data-control": name });
  for (const [value, text] of options) input.append(el("option", { value: String(value) }, text));
  const row = el("div", { class: "control control-select" }, el("label", { for: id }, label), input);
  return { row, input, get: () => input.value, set: (v) => { input.value = String(v); } };
}

