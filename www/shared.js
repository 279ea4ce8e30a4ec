// What every part of the element shares: the lists it builds from the generated settings module,
// the checks of a view option, and three small DOM helpers.
import { SETTINGS, CHARTS } from "./settings.js";

/// Settings with a control on the page, in the table's order.
export const MAIN_SETTINGS = SETTINGS.filter((s) => s.control === "main");
export const ADVANCED_SETTINGS = SETTINGS.filter((s) => s.control === "advanced");
export const CONTROLLED = [...MAIN_SETTINGS, ...ADVANCED_SETTINGS];
/// What the `controls` option may name.
/// What the `controls` option may name: the main settings, any advanced setting by its attribute
/// (shown beside the main ones, as an inline figure's one control), and the groups.
export const ALL_CONTROLS = [...MAIN_SETTINGS.map((s) => s.attribute), ...ADVANCED_SETTINGS.map((s) => s.attribute),
  "advanced", "actions", "compare", "cursor", "play", "description"];
/// What the `charts` option may name: any chart, the headline figures and the crash table.
export const ALL_VIEWS = [...CHARTS.map(([name]) => name), "figures", "crash-table"];
/// Keys mount() and set() accept besides the engine's config keys.
export const VIEW_OPTIONS = ["sink", "controls", "theme", "scenario", "exercise", "exercises", "charts", "cursor"];
export const THEMES = ["light", "dark", "auto"];
/// The tag the element is defined under: "checkpoint-lab", or where a page took that name first,
/// a name of the component's own, which mount() uses.
export const TAG = { name: "checkpoint-lab" };
/// The lesson's default settings, from the settings table: a view is built from them before
/// the engine's module has loaded.
export const DEFAULT_CONFIG = Object.freeze(Object.fromEntries(SETTINGS.map((s) => [s.key, s.default])));

/// A JavaScript value as an error message names it, without running any of its code.
export function describeValue(value) {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  switch (typeof value) {
    case "string": return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
    case "number": case "boolean": case "bigint": return String(value);
    case "symbol": return "a symbol";
    case "function": return "a function";
    case "undefined": return "undefined";
    default: return "an object";
  }
}

/// A view option (from mount()/set() or its attribute), checked like a setting: a string, or a
/// list of names; anything else throws an Error naming the option.
export function textOption(name, value) {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") throw new Error(`${name}: must be a string (got ${describeValue(value)})`);
  return value;
}

/// A list option ("a b c" or ["a", "b", "c"]) whose every name must be in `known`, when given.
export function listOption(name, value, known) {
  if (value === undefined || value === null) return undefined;
  const names = Array.isArray(value) ? value : typeof value === "string" ? value.split(/[\s,]+/).filter(Boolean) : null;
  if (!names || names.some((n) => typeof n !== "string")) {
    throw new Error(`${name}: must be a string of names separated by spaces, or an array of strings (got ${describeValue(value)})`);
  }
  if (known) {
    const unknown = names.find((n) => !known.includes(n));
    if (unknown !== undefined) throw new Error(`${name}: unknown name ${describeValue(unknown)}; the names are ${known.join(", ")}`);
  }
  return names;
}

/// Sets a node's text only when it changes: a write of the same text still replaces the node's
/// child and makes the browser recompute styles, which a canvas then waits for when it sets its
/// font.
export function setText(node, text) {
  if (node.textContent === text) return;
  // A lone text node's characters are changed in place: the element keeps its child, so the
  // browser lays the text out again without recomputing any element's style.
  const only = node.firstChild;
  if (only && only === node.lastChild && only.nodeType === Node.TEXT_NODE && text !== "") only.data = text;
  else node.textContent = text;
}

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  for (const c of children) node.append(c);
  return node;
}

/// A canvas's backing store, in device pixels, for its CSS size at a pixel ratio.
export const backingSize = (size, dpr) => [Math.max(1, Math.round(size.width * dpr)), Math.max(1, Math.round(size.height * dpr))];
/// The index of the value in `list` nearest to `v`.
export const nearest = (list, v) => list.reduce((best, x, i) => (Math.abs(x - v) < Math.abs(list[best] - v) ? i : best), 0);

/// Writes `rows` (each a list of cell texts) into table body `body`: the rows it already has
/// keep their cells and get the new words, so a change rewrites text and adds or removes only
/// the rows it gained or lost (`newRow()` makes one, with its empty cells).
export function writeRows(body, rows, newRow) {
  while (body.rows.length > rows.length) body.rows[body.rows.length - 1].remove();
  while (body.rows.length < rows.length) body.append(newRow());
  rows.forEach((texts, i) => texts.forEach((text, j) => setText(body.rows[i].cells[j], text)));
}
