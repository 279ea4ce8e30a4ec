//! Generated files: from the settings table, the page's settings module (`www/settings.js`) and
//! the `Config` and attribute declarations; from the report's Rust types, the report's
//! TypeScript declarations; from the settings table, the settings reference (`docs/settings.md`).
//! A change to any of them fails here until
//! `UPDATE_GENERATED=1 cargo test --test generated` writes the files again.
#![cfg(not(target_arch = "wasm32"))]

use checkpoint_lab::lesson::{self, controls};

const DECLARATIONS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/www/checkpoint-lab.d.ts");
const MODULE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/www/settings.js");
const SETTINGS_BLOCK: (&str, &str) = ("// <generated from src/engine/settings/table.rs>\n", "// </generated>\n");
const REFERENCE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/settings.md");
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

#[test]
fn the_settings_reference_is_current() {
    let expected = controls::markdown_reference();
    if update() {
        std::fs::write(REFERENCE, &expected).unwrap();
    }
    let found = std::fs::read_to_string(REFERENCE).unwrap_or_default();
    assert!(found == expected, "docs/settings.md is stale: run UPDATE_GENERATED=1 cargo test --test generated");
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

/// The lesson page's first picture: the pipeline view of the default scenario where it first
/// stands, drawn as SVG by the code that draws the canvas, at the size the page's canvas has on a
/// wide screen, in both themes. The page shows it until the engine has drawn the canvas.
#[test]
fn the_first_picture_is_current() {
    use checkpoint_lab::charts::{self, Chart, Focus, Theme, View};
    let report = lesson::simulate(&checkpoint_lab::engine::Config::default()).unwrap();
    for (theme, file) in [(Theme::Light, "first-picture.svg"), (Theme::Dark, "first-picture-dark.svg")] {
        let view = View { theme, ..View::default() };
        let expected = charts::svg(Chart::Pipeline, &report, &Focus::default(), &view, FIRST_PICTURE_PX).unwrap();
        let path = format!("{}/www/{file}", env!("CARGO_MANIFEST_DIR"));
        if update() {
            std::fs::write(&path, &expected).unwrap();
        }
        let found = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(found == expected, "www/{file} is stale: run UPDATE_GENERATED=1 cargo test --test generated");
    }
}

/// The pipeline canvas's box on a wide lesson page (the page's content width, and the height
/// checkpoint-lab.css gives it), in CSS pixels.
const FIRST_PICTURE_PX: (u32, u32) = (1052, 330);

/// The page's rules live in Rust: no hand-written script of the element or the page names a
/// setting's key (as a string, a property or, for a key of several words, at all) outside a
/// comment. What the page shows for a setting comes from the generated settings module and from
/// what the engine computes for each change (src/lesson/view.rs).
#[test]
fn no_hand_written_script_names_a_setting() {
    let www = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("www");
    let mut hits = Vec::new();
    for entry in std::fs::read_dir(&www).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if !name.ends_with(".js") || name == "settings.js" {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        for (number, line) in text.lines().enumerate() {
            let code = line.trim_start();
            if code.starts_with("//") || code.starts_with('*') || code.starts_with("/*") {
                continue;
            }
            for setting in &checkpoint_lab::engine::settings::SETTINGS {
                let key = setting.key;
                let named = line.match_indices(key).any(|(at, _)| {
                    let before = line[..at].chars().next_back();
                    let after = line[at + key.len()..].chars().next();
                    let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
                    if word(before) || word(after) {
                        return false;
                    }
                    key.contains('_')
                        || matches!(before, Some('"' | '\'' | '.')) && !matches!(after, Some('(') | Some('-'))
                });
                if named {
                    hits.push(format!("www/{name}:{}: {key}: {}", number + 1, line.trim()));
                }
            }
        }
    }
    assert!(hits.is_empty(), "settings named in hand-written scripts:\n{}", hits.join("\n"));
}
