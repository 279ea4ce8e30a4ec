//! Files made from the settings table: the page's settings module (`www/settings.js`) and the
//! `Config` interface in the TypeScript declarations. A setting changed in `src/settings.rs`
//! fails here until `UPDATE_GENERATED=1 cargo test --test generated` writes the files again.

use checkpoint_lab::settings;

const DECLARATIONS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/www/checkpoint-lab.d.ts");
const MODULE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/www/settings.js");
const BEGIN: &str = "// <generated from src/settings.rs>\n";
const END: &str = "// </generated>\n";

fn update() -> bool {
    std::env::var_os("UPDATE_GENERATED").is_some()
}

#[test]
fn the_settings_module_is_current() {
    let expected = settings::javascript_module();
    if update() {
        std::fs::write(MODULE, &expected).unwrap();
    }
    let found = std::fs::read_to_string(MODULE).unwrap_or_default();
    assert!(found == expected, "www/settings.js is stale: run UPDATE_GENERATED=1 cargo test --test generated");
}

#[test]
fn the_config_declaration_is_current() {
    let text = std::fs::read_to_string(DECLARATIONS).unwrap();
    let (Some(begin), Some(end)) = (text.find(BEGIN), text.find(END)) else {
        panic!("www/checkpoint-lab.d.ts has no generated block");
    };
    let generated = &text[begin + BEGIN.len()..end];
    let expected = settings::typescript_config();
    if update() {
        let rewritten = format!("{}{BEGIN}{expected}{}", &text[..begin], &text[end..]);
        std::fs::write(DECLARATIONS, rewritten).unwrap();
    } else {
        assert!(
            generated == expected,
            "the Config declaration is stale: run UPDATE_GENERATED=1 cargo test --test generated"
        );
    }
}
