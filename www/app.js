// The lesson page: builds the controls, runs the engine on every slider input and redraws.
import init, { Lab } from "../pkg/checkpoint_lab.js";

const INTERVALS_MS = [1e3, 2e3, 3e3, 5e3, 10e3, 15e3, 20e3, 30e3, 45e3, 60e3, 90e3, 120e3, 180e3, 300e3, 450e3, 600e3];

function formatDuration(ms) {
  if (ms < 60e3) return `${ms / 1e3} s`;
  return `${ms / 60e3} min`;
}

function el(tag, attrs = {}, text) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  return node;
}

function setupUI(root, lab) {
  const status = root.querySelector("#lab-status");
  status.remove();
  const row = el("div", { class: "control" });
  const label = el("label", { for: "interval" }, "Checkpoint interval");
  const slider = el("input", { id: "interval", type: "range", min: "0", max: String(INTERVALS_MS.length - 1), step: "1" });
  slider.value = String(INTERVALS_MS.indexOf(30e3));
  const readout = el("output", { for: "interval", class: "readout" });
  row.append(label, slider, readout);
  const figure = el("ul", { class: "figures" });
  const replayed = el("li");
  const replayedValue = el("span", { class: "value", "data-figure": "replayed_events" });
  replayed.append(replayedValue, el("span", { class: "label" }, "events replayed"));
  figure.append(replayed);
  const canvas = el("canvas", { class: "chart", id: "chart-replay", role: "img" });
  const error = el("p", { class: "error", role: "alert" });
  root.append(row, figure, canvas, error);
  return { slider, readout, canvas, replayedValue, error };
}

function setupCanvas(canvas) {
  const dpr = window.devicePixelRatio || 1;
  const rect = canvas.getBoundingClientRect();
  canvas.width = Math.max(1, Math.round(rect.width * dpr));
  canvas.height = Math.max(1, Math.round(rect.height * dpr));
  return dpr;
}

function update(lab, ui) {
  const interval = INTERVALS_MS[Number(ui.slider.value)];
  ui.readout.textContent = formatDuration(interval);
  ui.slider.setAttribute("aria-valuetext", formatDuration(interval));
  try {
    const summary = lab.run({ interval_ms: interval });
    ui.replayedValue.textContent = summary.replayed_events.toLocaleString("en-US");
    const dark = window.matchMedia("(prefers-color-scheme: dark)").matches;
    const dpr = setupCanvas(ui.canvas);
    lab.draw("replay", ui.canvas, dark, dpr, undefined);
    const alt = lab.text_alternative("replay");
    ui.canvas.setAttribute("aria-label", alt.summary);
    ui.error.textContent = "";
  } catch (e) {
    ui.error.textContent = String(e.message || e);
  }
}

async function main() {
  await init();
  const lab = new Lab();
  const ui = setupUI(document.getElementById("lab"), lab);
  ui.slider.addEventListener("input", () => update(lab, ui));
  window.addEventListener("resize", () => update(lab, ui));
  update(lab, ui);
  document.body.dataset.ready = "true";
}

main();
