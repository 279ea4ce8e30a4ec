//! Generated files: from the settings table, the page's settings module (`www/settings.js`) and
//! the `Config` and attribute declarations; from the report's Rust types, the report's
//! TypeScript declarations. A change to either fails here until
//! `UPDATE_GENERATED=1 cargo test --test generated` writes the files again.
#![cfg(not(target_arch = "wasm32"))]

use checkpoint_lab::lesson::{self, controls};

const DECLARATIONS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/www/checkpoint-lab.d.ts");
const MODULE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/www/settings.js");
const SETTINGS_BLOCK: (&str, &str) = ("// <generated from src/engine/settings.rs>\n", "// </generated>\n");
const REPORT_BLOCK: (&str, &str) =
    ("// <generated from the report's Rust types>\n", "// </generated from the report's Rust types>\n");

fn update() -> bool {
    std::env::var_os("UPDATE_GENERATED").is_some()
}

#[test]
fn the_settings_module_is_current() {
    let expected = controls::javascript_module();
    if update() {
        std::fs::write(MODULE, &expected).unwrap();
    }
    let found = std::fs::read_to_string(MODULE).unwrap_or_default();
    assert!(found == expected, "www/settings.js is stale: run UPDATE_GENERATED=1 cargo test --test generated");
}

/// Checks (or with UPDATE_GENERATED rewrites) one generated block of the declarations.
fn check_block((begin_marker, end_marker): (&str, &str), expected: &str) {
    // The tests run in parallel; a rewrite of the one file must not overwrite another's.
    static FILE: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _only_writer = FILE.lock().unwrap_or_else(|e| e.into_inner());
    let text = std::fs::read_to_string(DECLARATIONS).unwrap();
    let (Some(begin), Some(end)) = (text.find(begin_marker), text.find(end_marker)) else {
        panic!("www/checkpoint-lab.d.ts has no block {begin_marker:?}");
    };
    let generated = &text[begin + begin_marker.len()..end];
    if update() {
        let rewritten = format!("{}{begin_marker}{expected}{}", &text[..begin], &text[end..]);
        std::fs::write(DECLARATIONS, rewritten).unwrap();
    } else {
        assert!(
            generated == expected,
            "the block {begin_marker:?} of the declarations is stale: run UPDATE_GENERATED=1 cargo test --test generated"
        );
    }
}

#[test]
fn the_config_declaration_is_current() {
    check_block(SETTINGS_BLOCK, &controls::typescript_config());
}

#[test]
fn the_report_declarations_are_current() {
    check_block(REPORT_BLOCK, &lesson::report::typescript_declarations());
}
