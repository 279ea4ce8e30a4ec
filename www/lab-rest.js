// The second part of the lab's WebAssembly module (src/web/split.rs): the whole run, its report
// and every chart but the first. The first part (checkpoint_lab_bg.wasm) imports
// `__wasm_split_load_rest` from this module and calls it, through the Rust side, the first time a
// function of the second part is called in an instance. The part shares the first part's memory,
// table and stack pointer; joining it writes its functions into the table and the data only it
// reads into the memory, once per instance, so after a panic it is joined to the new instance as
// to the first.
import { initSync } from "./checkpoint_lab.js";

let compiled;
/// The second part once compiled (then joining it takes no waiting).
let rest;
/// The instance of the second part joined to each instance of the first, by its memory.
const joined = new WeakMap();

/// Fetches and compiles the second part, once; resolves when it can be joined at once. A page
/// calls it with nothing (the part is fetched beside this file); elsewhere (Node) pass it as
/// wasm-bindgen's init takes the first: `loadRest({ module_or_path: bytes })`, bytes, a URL, a
/// Response or a WebAssembly.Module. A failed load can be tried again.
export function loadRest(source) {
  compiled ??= compileRest(source?.module_or_path ?? source ?? new URL("./checkpoint_lab_rest_bg.wasm", import.meta.url)).then((module) => (rest = module));
  compiled.catch(() => { compiled = undefined; });
  return compiled.then(() => undefined);
}

async function compileRest(input) {
  if (input instanceof WebAssembly.Module) return input;
  if (typeof input === "string" || input instanceof URL) input = fetch(input);
  const response = await input;
  if (typeof Response !== "function" || !(response instanceof Response)) return WebAssembly.compile(response);
  if (!response.ok) throw new Error(`failed to fetch the lab's second part: ${response.status} ${response.statusText} fetching '${response.url}'`);
  try {
    return await WebAssembly.compileStreaming(response.clone());
  } catch {
    // A server that does not send application/wasm: compiled from the bytes instead.
    return WebAssembly.compile(await response.arrayBuffer());
  }
}

/// Joins the second part to `wasm` (the first part's current instance), once per instance.
function join(wasm) {
  if (joined.has(wasm.memory)) return;
  const shared = {};
  for (const { module, name } of WebAssembly.Module.imports(rest)) {
    if (module !== "__wasm_split" || !(name in wasm)) throw new Error(`the lab's second part needs ${module}.${name}, which its first part does not give`);
    shared[name] = wasm[name];
  }
  joined.set(wasm.memory, new WebAssembly.Instance(rest, { __wasm_split: shared }));
}

/// Called by the first part: joins the second and then calls back `(data, success)` through the
/// table. At once when the part is compiled; otherwise once it is, unless the instance that asked
/// has been replaced by then.
export function __wasm_split_load_rest(callbackIndex, callbackData) {
  const wasm = initSync();
  const joinAndCallBack = () => {
    let success = true;
    try {
      join(wasm);
    } catch (e) {
      console.error(e);
      success = false;
    }
    wasm.__indirect_function_table.get(callbackIndex)(callbackData, success);
  };
  if (rest) {
    joinAndCallBack();
    return;
  }
  loadRest().then(
    () => {
      if (initSync() === wasm) joinAndCallBack();
    },
    (e) => {
      console.error(e);
      if (initSync() === wasm) wasm.__indirect_function_table.get(callbackIndex)(callbackData, false);
    },
  );
}
