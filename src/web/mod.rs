//! The web edge: the only code that touches wasm-bindgen, web-sys and js-sys. It
//! turns JavaScript values into a checked config, keeps the finished run in wasm memory behind a
//! handle, and draws the charts on canvases. Errors become thrown `Error`s naming the field.
//!
//! It builds as three WebAssembly modules: the lab (feature `lab`: runs, charts, settings), which
//! a lesson page loads first; the first chart (feature `first-chart`: the pipeline view where it
//! first stands, and nothing else), which a page loads before the lab where its HTML holds no
//! picture of the first frame; and the exercises (feature `exercises`: the catalogue and the
//! checks, running the lab's engine through the page), which a page loads only where it shows
//! exercises.

use wasm_bindgen::prelude::*;

#[cfg(any(feature = "lab", feature = "first-chart"))]
mod canvas;
#[cfg(any(feature = "lab", feature = "first-chart"))]
mod config;
#[cfg(feature = "exercises")]
mod exercises;
#[cfg(feature = "first-chart")]
mod first_chart;
#[cfg(any(feature = "lab", feature = "first-chart"))]
mod format;
#[cfg(feature = "exercises")]
mod js_value;
#[cfg(feature = "lab")]
mod lab;

#[cfg(feature = "lab")]
pub use config::parse_attributes;
#[cfg(feature = "exercises")]
pub use exercises::*;
#[cfg(feature = "first-chart")]
pub use first_chart::*;
#[cfg(any(feature = "lab", feature = "first-chart"))]
pub use format::*;
#[cfg(feature = "lab")]
pub use lab::*;

// The declarations wasm-bindgen writes give each exported class a `[Symbol.dispose]()`; declaring
// the symbol lets them compile where the project's `lib` predates it (ES2022) and no @types/node
// declares it, and merges with the declaration where one does.
#[wasm_bindgen(typescript_custom_section)]
const SYMBOL_DISPOSE: &str = "declare global { interface SymbolConstructor { readonly dispose: unique symbol } }";

/// The event dispatched on `window` when a panic is about to discard the lab's instance.
#[cfg(feature = "lab")]
const RESTART_EVENT: &str = "checkpointlab-engine-restart";

/// Runs when the module is instantiated (and again when it is re-created after a panic).
#[wasm_bindgen(start)]
pub fn start() {
    std::panic::set_hook(Box::new(|info| {
        console_error_panic_hook::hook(info);
        // The page hears of it first, while this instance still answers (the element stops its
        // timers here), then the instance is discarded: a panic aborts in wasm and may leave the
        // heap or a borrow half-done, so the next call from JavaScript runs in a fresh one.
        // Only the lab's instance holds what the page must re-run; the exercises' instance is
        // simply made anew on its next call.
        #[cfg(feature = "lab")]
        if let (Some(window), Ok(event)) = (web_sys::window(), web_sys::Event::new(RESTART_EVENT)) {
            let _ = window.dispatch_event(&event);
        }
        wasm_bindgen::handler::schedule_reinit();
    }));
}

/// Panics on purpose, for the tests that prove a panic does not poison the module. Only the test
/// build has it (feature `test-hooks`); the package's modules do not.
#[cfg(feature = "test-hooks")]
#[doc(hidden)]
#[wasm_bindgen(js_name = __panicForTests, skip_typescript)]
pub fn panic_for_tests() {
    panic!("a panic forced by a test");
}

/// A sink design by its name, or an Error naming `sink` and the designs.
#[cfg(any(feature = "lab", feature = "first-chart"))]
fn sink_named(sink: &str) -> Result<crate::engine::SinkDesign, JsError> {
    crate::engine::SinkDesign::from_name(sink).ok_or_else(|| {
        JsError::new(&format!("sink: must be append-only, upsert, transactional or dedupe-view (got {sink:?})"))
    })
}

/// Longer than any setting's text ("micro_batch", "10:00:45.500") or key: refused before it is
/// copied.
const MAX_TEXT_CHARS: u32 = 256;

#[cfg(any(feature = "lab", feature = "exercises", feature = "first-chart"))]
fn to_js<T: serde::Serialize>(value: &T) -> Result<JsValue, JsError> {
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|e| JsError::new(&format!("could not convert the result: {e}")))
}

#[wasm_bindgen]
extern "C" {
    /// `Array.isArray`, catching what a revoked Proxy throws instead of letting it unwind through wasm.
    #[wasm_bindgen(catch, js_namespace = Array, js_name = isArray)]
    fn is_array_checked(value: &JsValue) -> Result<bool, JsValue>;
    /// `Object.keys`, catching what a Proxy's `ownKeys` trap or a getter throws.
    #[wasm_bindgen(catch, js_namespace = Object, js_name = keys)]
    fn keys_checked(value: &JsValue) -> Result<js_sys::Array, JsValue>;
}
