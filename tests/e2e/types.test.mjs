// The TypeScript declarations under `tsc --strict`: the documented TypeScript (docs/embedding.md and
// the npm package's README) and a usage file that touches every exported function, every event,
// the JSX element and every report field.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { ROOT } from "./harness.mjs";

/// Every field path of a real report (barrier and micro-batch runs), as TypeScript that reads it:
/// a report field missing from the declarations fails under --strict.
async function everyReportField() {
  const engine = await import(pathToFileURL(path.join(ROOT, "pkg", "checkpoint_lab.js")).href);
  await engine.default({ module_or_path: fs.readFileSync(path.join(ROOT, "pkg", "checkpoint_lab_bg.wasm")) });
  const paths = new Set();
  const walk = (value, at) => {
    if (Array.isArray(value)) {
      for (const item of value.slice(0, 50)) walk(item, `${at}[0]!`);
    } else if (value && typeof value === "object") {
      for (const [key, inner] of Object.entries(value)) {
        const step = `${at}.${key}`;
        paths.add(step);
        walk(inner, `${step}!`);
      }
    }
  };
  for (const config of [{}, { mode: "micro_batch", crash_at_ms: 36_046_000 }, { retry_rate: 0.01, alignment: "unaligned", backpressure_ms: 2000 }]) {
    walk(engine.simulate(config), "report");
  }
  return `import type { Report } from "checkpoint-lab";\nexport function readEverything(report: Report): unknown[] {\n  return [\n${[...paths].map((p) => `    ${p},`).join("\n")}\n  ];\n}\n`;
}

const USAGE = `
import {
  load, simulate, defaults, defaultConfig, toAttributes, mount, wasmMemoryBytes, registerExercises, exerciseIds, SCENARIOS,
  type Config, type Report, type Summary, type ChangeDetail, type ExerciseDetail, type CheckpointLabElement,
  type CheckpointLabAttributes, type Exercise, type Phase, type SinkDesign, type LabHandle,
} from "checkpoint-lab";

declare global { namespace JSX { interface Element {} } }

export async function everything(): Promise<void> {
  await load();
  const config: Config = await defaults();
  const same: Config = await defaultConfig();
  const attributes: Record<string, string> = await toAttributes({ interval_ms: config.interval_ms + same.interval_ms });
  const report: Report = await simulate({ ...config, crash_at_ms: null, mode: "micro_batch", alignment: "unaligned", snapshots: "incremental" });
  const phase: Phase = report.series[0].phase;
  const waiting: Phase = "waiting_for_trigger";
  const design: SinkDesign = report.sinks.append_only.design;
  const keys: number = report.sinks.upsert.keys + report.sinks.dedupe_view.keys;
  const restored: number | undefined = report.restored_checkpoint?.id;
  const crashAt: string | undefined = report.crash?.at.at;
  const recovery: number | null = report.recovery_s;
  const table: string[] = report.crash_table.map((row) => \`\${row.at.at} \${row.offset ?? ""} \${row.what}\`);
  const batches: number = report.offset_log.length + report.checkpoints.length + report.timeline.length;
  const steady: boolean = report.steady_state.store_limited;
  const stale: number = report.series[0].staleness_ms.transactional;
  console.log(attributes, phase, waiting, design, keys, restored, crashAt, recovery, table, batches, steady, stale, report.warnings);
  const handle = await mount(document.body, { interval_ms: 10_000, controls: ["interval", "crash-at"], sink: "upsert", theme: "dark" });
  const lab: CheckpointLabElement = handle.element;
  await lab.whenReady();
  const summary: Summary | undefined = handle.summary();
  const current: Report | undefined = lab.report();
  console.log(summary?.duplicate_rows.append_only, current?.config.interval_ms, lab.busy, await wasmMemoryBytes());
  const drawn: LabHandle = await handle.set({ state_bytes: 512_000_000 });
  console.log(drawn.summary()?.replayed_events);
  handle.set({ state_bytes: 256_000_000 }).destroy();
  const exercise: Exercise = { id: "mine", title: "t", prompt: "p", kind: "number", check: "answer == replayed_events",
    answer: "replayed_events", feedback: { right: "yes", wrong: "no" }, explanation: "e" };
  const ids: string[] = [...(await registerExercises([exercise])), ...(await exerciseIds())];
  console.log(ids, SCENARIOS.lesson.label);
  // Events, typed wherever they are heard.
  document.addEventListener("checkpointlab-change", (event) => { const d: ChangeDetail = event.detail; console.log(d.settings.interval_ms); });
  window.addEventListener("checkpointlab-exercise", (event) => { const d: ExerciseDetail = event.detail; console.log(d.correct); });
  lab.addEventListener("checkpointlab-ready", (event) => console.log(event.type));
  const found: CheckpointLabElement | null = document.querySelector("checkpoint-lab");
  console.log(found);
}

const shown: CheckpointLabAttributes = { interval: "30s", "crash-at": "10:00:45", "state-size": "2GB", sink: "upsert" };
export const element = <checkpoint-lab interval="7s" crash-at="10:00:45" controls="interval crash-at" theme="light" />;
console.log(shown);
`;

test("the declarations type the documented TypeScript, every export and every report field under tsc --strict", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "checkpoint-lab-types-"));
  try {
    // The TypeScript a reader copies: docs/embedding.md's and the npm package's README's.
    for (const [name, file] of [["embedding", "docs/embedding.md"], ["package-readme", "www/package-README.md"]]) {
      const text = fs.readFileSync(path.join(ROOT, file), "utf8");
      const blocks = [...text.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]);
      assert.ok(blocks.length >= 1, `${file} has TypeScript to check`);
      blocks.forEach((code, i) => fs.writeFileSync(path.join(dir, `${name}-${i}.ts`), `${code}\nexport {};\n`));
    }
    fs.writeFileSync(path.join(dir, "usage.tsx"), USAGE);
    fs.writeFileSync(path.join(dir, "fields.ts"), await everyReportField());
    fs.writeFileSync(path.join(dir, "tsconfig.json"), JSON.stringify({
      compilerOptions: {
        strict: true, noEmit: true, target: "es2022", module: "esnext", moduleResolution: "bundler",
        lib: ["dom", "es2022"], jsx: "preserve", types: [], skipLibCheck: false,
        paths: { "checkpoint-lab": [path.join(ROOT, "www", "checkpoint-lab.d.ts")] },
      },
      include: ["*.ts", "*.tsx"],
    }));
    try {
      execFileSync(path.join(ROOT, "node_modules", ".bin", "tsc"), ["-p", dir], { encoding: "utf8" });
    } catch (e) {
      assert.fail(`tsc --strict reported:\n${e.stdout}${e.stderr}`);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

// A component in each framework a course site may write its pages in, using <checkpoint-lab> with
// attributes, a ref and a typed event listener, against the packed package and the frameworks' real
// types (devDependencies in package-lock.json): React 19, whose types read only the JSX namespace
// inside "react"; Preact; Solid 2, whose JSX lives in "@solidjs/web". Plus the raw engine's entry,
// typed with the report. A wrong choice value and an unknown attribute must fail to compile.
const COMPONENT = (framework) => {
  const hooks = { react: "react", preact: "preact/hooks" }[framework];
  const className = framework === "react" ? "className" : "class";
  const use = hooks
    ? `import { useEffect, useRef } from "${hooks}";
export function Lesson({ onChange }: { onChange: (detail: ChangeDetail) => void }) {
  const lab = useRef<CheckpointLabElement>(null);
  useEffect(() => {
    const element = lab.current;
    if (!element) return;
    const heard = (event: CustomEvent<ChangeDetail>) => onChange(event.detail);
    element.addEventListener("checkpointlab-change", heard);
    element.addEventListener("checkpointlab-cursor", (event) => console.log(event.detail.at, element.report()?.replayed_events));
    return () => element.removeEventListener("checkpointlab-change", heard);
  }, [onChange]);
  const ref = lab;`
    : `export function Lesson(props: { onChange: (detail: ChangeDetail) => void }) {
  const ref = (element: CheckpointLabElement) => {
    element.addEventListener("checkpointlab-change", (event) => props.onChange(event.detail));
    element.addEventListener("checkpointlab-cursor", (event) => console.log(event.detail.at, element.report()?.replayed_events));
  };`;
  return `import "checkpoint-lab";
import type { ChangeDetail, CheckpointLabElement } from "checkpoint-lab";
${use}
  return (
    <figure>
      <checkpoint-lab ref={ref} interval="10s" state-size="2GB" crash-at="10:00:45" mode="micro-batch" failure="taskmanager_lost"
        sink="upsert" scenario="slow-store" theme="dark" controls="interval crash-at" charts="pipeline replay" ${className}="figure" id="lab" />
      {/* @ts-expect-error: a mode the settings table does not have */}
      <checkpoint-lab mode="sideways" />
      {/* @ts-expect-error: an attribute the element does not read */}
      <checkpoint-lab intervall="10s" />
    </figure>
  );
}
`;
};

const ENGINE = `import init, { simulate, defaults } from "checkpoint-lab/engine";
import type { Config, Report } from "checkpoint-lab";
export async function run(bytes: ArrayBuffer): Promise<number> {
  await init({ module_or_path: bytes });
  const config: Config = defaults();
  const report: Report = simulate({ ...config, interval_ms: 5000 });
  // @ts-expect-error: the report has no such field (simulate() is typed, not any)
  console.log(report.no_such_field);
  // @ts-expect-error: a key the settings table does not have
  simulate({ intervall_ms: 5000 });
  return report.interval_replay_events;
}
`;

const FRAMEWORKS = {
  react: { jsx: "react-jsx", jsxImportSource: "react", packages: ["@types/react", "csstype"] },
  preact: { jsx: "react-jsx", jsxImportSource: "preact", packages: ["preact"] },
  solid: { jsx: "preserve", jsxImportSource: "@solidjs/web", packages: ["solid-js", "@solidjs/web"] },
};
const RESOLUTIONS = {
  bundler: { module: "esnext", moduleResolution: "bundler" },
  nodenext: { module: "nodenext", moduleResolution: "nodenext" },
  node10: { module: "esnext", moduleResolution: "node10" },
};

test("a React 19, a Preact and a Solid component type <checkpoint-lab> against the packed package, under bundler, nodenext and node10 resolution", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "checkpoint-lab-frameworks-"));
  try {
    const [packed] = JSON.parse(execFileSync("npm", ["pack", "--json", "--pack-destination", dir], { cwd: path.join(ROOT, "pkg"), encoding: "utf8" }));
    execFileSync("tar", ["-xzf", path.join(dir, packed.filename), "-C", dir]);
    fs.mkdirSync(path.join(dir, "node_modules", "@types"), { recursive: true });
    fs.mkdirSync(path.join(dir, "node_modules", "@solidjs"), { recursive: true });
    fs.renameSync(path.join(dir, "package"), path.join(dir, "node_modules", "checkpoint-lab"));
    for (const name of Object.values(FRAMEWORKS).flatMap((f) => f.packages)) {
      fs.symlinkSync(path.join(ROOT, "node_modules", name), path.join(dir, "node_modules", name), "dir");
    }
    fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "course-site", private: true, type: "module" }));
    fs.writeFileSync(path.join(dir, "engine.ts"), ENGINE);
    const failures = [];
    for (const [framework, { jsx, jsxImportSource }] of Object.entries(FRAMEWORKS)) {
      fs.writeFileSync(path.join(dir, `${framework}.tsx`), COMPONENT(framework));
      for (const [resolution, options] of Object.entries(RESOLUTIONS)) {
        // Solid 2's JSX runtime is declared only through its package's "exports", which Node 10
        // resolution does not read: no Solid 2 project compiles JSX under it, with or without
        // this package.
        if (framework === "solid" && resolution === "node10") continue;
        const config = path.join(dir, `tsconfig.${framework}.${resolution}.json`);
        fs.writeFileSync(config, JSON.stringify({
          compilerOptions: {
            strict: true, noEmit: true, target: "es2022", lib: ["dom", "es2022"], types: [], skipLibCheck: false,
            jsx, jsxImportSource, ...options,
          },
          files: [`${framework}.tsx`, ...(framework === "react" ? ["engine.ts"] : [])],
        }));
        try {
          execFileSync(path.join(ROOT, "node_modules", ".bin", "tsc"), ["-p", config], { encoding: "utf8", cwd: dir });
        } catch (e) {
          failures.push(`${framework}, moduleResolution ${resolution}:\n${e.stdout}${e.stderr}`);
        }
      }
    }
    assert.deepEqual(failures, []);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
