// Writes the package's component manifest, custom-elements.json (the Custom Elements Manifest
// schema 2.1.0: what IDEs, Storybook and documentation tools read), and VS Code's HTML custom
// data made from it, vscode.html-custom-data.json. Every setting's attribute, with its type,
// default and description, comes from the generated block of checkpoint-lab.d.ts (written from
// the settings table, src/engine/settings/table.rs); the view's attributes from the lists the
// element checks them against (www/shared.js, www/settings.js); the members, events and slot are
// the element's public surface as checkpoint-lab.d.ts declares it.
//
//   node scripts/custom-elements.mjs OUT_DIR     (scripts/build-wasm.sh: OUT_DIR is pkg)
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/// The manifest and the custom data, as objects.
export async function manifest() {
  const { SETTINGS, SINKS, SCENARIOS } = await import(pathToFileURL(path.join(ROOT, "www", "settings.js")).href);
  const { ALL_CONTROLS, ALL_VIEWS, THEMES } = await import(pathToFileURL(path.join(ROOT, "www", "shared.js")).href);
  const declarations = fs.readFileSync(path.join(ROOT, "www", "checkpoint-lab.d.ts"), "utf8");
  const block = declarations.slice(declarations.indexOf("export interface SettingAttributes {"));
  const body = block.slice(0, block.indexOf("\n}\n") + 1);
  const settings = [...body.matchAll(/\/\*\* (.*); default `([^`]*)`\. \*\/\n {2}"([a-z-]+)"\?: (.*);\n/g)].map(
    ([, description, fallback, name, type]) => ({ name, description: `${description}.`, type: { text: type }, default: JSON.stringify(fallback) }),
  );
  if (settings.length !== SETTINGS.length) {
    throw new Error(`custom-elements: ${settings.length} of the ${SETTINGS.length} settings' attributes read from www/checkpoint-lab.d.ts`);
  }
  const union = (names) => names.map((n) => JSON.stringify(n)).join(" | ");
  const view = [
    { name: "sink", description: "The sink design the sink chart highlights.", type: { text: union(SINKS.map(([name]) => name)) }, default: '"append-only"' },
    { name: "scenario", description: "A named scenario the settings start from; setting attributes change it further.", type: { text: union(Object.keys(SCENARIOS)) }, default: '"lesson"' },
    { name: "theme", description: "Light, dark, or the reader's system preference.", type: { text: union(THEMES) }, default: '"auto"' },
    { name: "controls", description: `Which controls show, space-separated: ${ALL_CONTROLS.join(", ")}; all of them when absent.`, type: { text: "string" } },
    { name: "charts", description: `Which views show, space-separated: ${ALL_VIEWS.join(", ")}; all of them when absent.`, type: { text: "string" } },
    { name: "cursor", description: "The scenario time the pipeline view shows: a clock time (\"10:00:58\"), a time from the crash (\"crash+1s\", which follows the crash) or milliseconds since the scenario start.", type: { text: "string" } },
    { name: "exercise", description: "One exercise to show, by id.", type: { text: "string" } },
    { name: "exercises", description: "Exercises to show, by id, space-separated, or \"all\".", type: { text: "string" } },
    { name: "exercises-src", description: "The URL of a JSON file of exercises (docs/exercises.md) to register and show.", type: { text: "string" } },
  ];
  const element = {
    kind: "class",
    name: "CheckpointLabElement",
    tagName: "checkpoint-lab",
    customElement: true,
    summary: "An interactive lesson on restarting a stream: checkpoints, a crash, the replay and four sink designs, simulated in WebAssembly.",
    description: "Every setting is an attribute, written as people write it (interval=\"10s\", state-size=\"2GB\", crash-at=\"10:00:45\"); changing one re-runs the scenario and redraws. Styles live in the shadow root; the element exposes no CSS parts or custom properties.",
    superclass: { name: "HTMLElement", package: "global:" },
    attributes: [...settings, ...view],
    members: [
      { kind: "field", name: "busy", type: { text: "boolean" }, readonly: true, description: "True while a run is being computed over several frames." },
      { kind: "method", name: "report", return: { type: { text: "Report | undefined" } }, description: "The report of the current run (see Report in checkpoint-lab.d.ts); undefined before the first run." },
      { kind: "method", name: "summary", return: { type: { text: "Summary | undefined" } }, description: "The current run's headline figures; undefined before the first run." },
      { kind: "method", name: "whenReady", return: { type: { text: "Promise<void>" } }, description: "Resolves once the first picture is drawn (or a bad setting is shown instead)." },
    ],
    events: [
      { name: "checkpointlab-change", type: { text: "CustomEvent<ChangeDetail>" }, description: "After every change: the headline figures (replayed_events, interval_replay_events, worst_case_replay_events, recovery_s, store_write_bytes_per_min, pause_overhead, duplicate_rows, warnings) and the settings. Bubbles and is composed." },
      { name: "checkpointlab-ready", type: { text: "CustomEvent<void>" }, description: "Once the first run is drawn." },
      { name: "checkpointlab-exercise", type: { text: "CustomEvent<ExerciseDetail>" }, description: "When a student answers an exercise: { id, correct, attempts }." },
      { name: "checkpointlab-cursor", type: { text: "CustomEvent<CursorDetail>" }, description: "Whenever the pipeline view's cursor moves: { ms, at }." },
    ],
    slots: [
      { name: "first-picture", description: "Images (data-theme=\"light\" or \"dark\") shown in the pipeline view's place until the engine has drawn it: the package's first-picture.svg and first-picture-dark.svg." },
    ],
    cssParts: [],
    cssProperties: [],
  };
  const cem = {
    schemaVersion: "2.1.0",
    readme: "README.md",
    modules: [{
      kind: "javascript-module",
      path: "checkpoint-lab.js",
      declarations: [element],
      exports: [
        { kind: "js", name: "CheckpointLabElement", declaration: { name: "CheckpointLabElement", module: "checkpoint-lab.js" } },
        { kind: "custom-element-definition", name: "checkpoint-lab", declaration: { name: "CheckpointLabElement", module: "checkpoint-lab.js" } },
      ],
    }],
  };
  return { cem, vscode: customData(cem) };
}

/// VS Code's HTML custom data (html.customData) for every element of a manifest: a choice's
/// values become the attribute's value list.
export function customData(cem) {
  const tags = cem.modules.flatMap((m) => m.declarations.filter((d) => d.customElement)).map((d) => ({
    name: d.tagName,
    description: `${d.summary}\n\n${d.description}`,
    attributes: d.attributes.map((a) => {
      const values = [...a.type.text.matchAll(/"([^"]*)"/g)].map(([, name]) => ({ name }));
      return {
        name: a.name,
        description: a.default ? `${a.description} Default: ${JSON.parse(a.default)}.` : a.description,
        ...(values.length && /^("[^"]*"( \| )?)+$/.test(a.type.text) ? { values } : {}),
      };
    }),
  }));
  return { $schema: "https://raw.githubusercontent.com/microsoft/vscode-html-languageservice/main/docs/customData.schema.json", version: 1.1, tags };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const out = process.argv[2];
  if (!out) throw new Error("usage: node scripts/custom-elements.mjs OUT_DIR");
  const { cem, vscode } = await manifest();
  fs.writeFileSync(path.join(out, "custom-elements.json"), JSON.stringify(cem, null, 2) + "\n");
  fs.writeFileSync(path.join(out, "vscode.html-custom-data.json"), JSON.stringify(vscode, null, 2) + "\n");
}
