//! Checkpoint Lab: an interactive lesson on restarting a stream. `engine` simulates the job,
//! `charts` draws its report with plotters, `cli` is the command line, and `web` (WebAssembly only) puts both on a page.

pub mod charts;
#[cfg(feature = "cli")]
pub mod cli;
pub mod engine;
pub mod settings;

#[cfg(target_arch = "wasm32")]
pub mod web;
