//! Checkpoint Lab: an interactive lesson on restarting a stream. `engine` holds the one table of
//! settings, simulates the job and reports numbers, `lesson` puts them into words,
//! `charts` draws the report with plotters, `cli` is the command line, and `web` (WebAssembly
//! only) puts them on a page.

pub mod charts;
#[cfg(feature = "cli")]
pub mod cli;
pub mod engine;
pub mod lesson;

#[cfg(target_arch = "wasm32")]
pub mod web;
