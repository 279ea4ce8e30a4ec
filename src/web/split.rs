//! The lab's module in two parts that share one memory, one table and one stack: the first holds
//! what the first chart needs (the settings, the run up to where the pipeline view first stands,
//! its drawing), the second the whole run, its report and every other chart. scripts/build-wasm.sh
//! cuts the module at the functions marked `wasm_split(rest)`; the page fetches and compiles the
//! second part once the first chart is drawn (`loadRest` in pkg/checkpoint_lab_rest.js), and the
//! first call into it then joins it to the instance.

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use wasm_bindgen::JsError;

/// The result of `call`, a function of the second part. Once that part is compiled, joining it
/// to the instance completes during the first poll, so the second poll gives the result; before
/// then, an Error saying what to wait for.
pub(super) fn now<T>(call: impl Future<Output = T>) -> Result<T, JsError> {
    let mut call = pin!(call);
    let mut context = Context::from_waker(Waker::noop());
    for _ in 0..2 {
        if let Poll::Ready(result) = call.as_mut().poll(&mut context) {
            return Ok(result);
        }
    }
    Err(JsError::new("engine: the second part of the lab's module has not loaded yet (await loadRest() first)"))
}
