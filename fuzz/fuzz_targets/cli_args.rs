//! Fuzzes the command-line flag parsing: the input, split on NUL bytes, is the argument list.
//! Parsing and checking must never panic; a rejection starts with an error line.
#![no_main]

use checkpoint_lab::cli::{parse, Parsed};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let args = std::iter::once("checkpoint-lab").chain(text.split('\0'));
    match parse(args) {
        Ok(Parsed::Run { config, .. }) => assert!(config.validate().is_ok()),
        Ok(Parsed::Text(_)) => {}
        Err(text) => assert!(text.starts_with("error:"), "{text}"),
    }
});
