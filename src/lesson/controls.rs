//! The page's controls and the TypeScript `Config` declaration, written from the engine's table of
//! settings: `www/settings.js` (the page builds its sliders and selects from it and the element
//! observes its attributes; it also lists the built-in exercises' ids) and a block of
//! `checkpoint-lab.d.ts`. Both are generated;
//! `tests/generated.rs` keeps the files current.

use serde::Serialize;
use serde_json::Value;

use crate::engine::settings::config::Config;
use crate::engine::settings::{Setting, Unit, SETTINGS};

/// The settings as the page reads them: the table with each default filled in, and the default as
/// the control's readout shows it (none for a choice or an optional setting left out), so the
/// page can show its first screen before the engine's module has loaded.
#[derive(Serialize)]
struct UiSetting {
    #[serde(flatten)]
    setting: Setting,
    default: Value,
    default_readout: Option<String>,
}

/// The table as a JavaScript module (`www/settings.js`): the page builds its controls from it and
/// the element observes its attributes. Generated; `tests/generated.rs` keeps the file current.
pub fn javascript_module() -> String {
    let defaults = Config::default();
    let rows: Vec<String> = SETTINGS
        .iter()
        .map(|s| {
            let default = defaults.get(s.key).unwrap_or(Value::Null);
            let default_readout = match (s.unit, default.as_f64()) {
                (Unit::Choice(_), _) | (_, None) => None,
                (unit, Some(value)) => Some(crate::engine::settings::format_unit(unit, value)),
            };
            let ui = UiSetting { setting: *s, default, default_readout };
            serde_json::to_string(&ui).expect("a setting serialises")
        })
        .collect();
    let ids: Vec<String> = crate::lesson::exercise::Exercise::builtin()
        .iter()
        .map(|e| serde_json::to_string(&e.id).expect("an id serialises"))
        .collect();
    format!(
        "// Generated from src/engine/settings/table.rs (the one table of settings) and the built-in exercises\n\
         // (src/lesson/exercise/builtin.json) by `UPDATE_GENERATED=1 cargo test --test generated`.\n\
         // Do not edit: change the table or the exercises instead.\n\
         export const SETTINGS = [\n  {}\n];\n\n\
         // The built-in exercises' ids: the element checks an exercise a page names before the\n\
         // exercises' own module has loaded against them.\n\
         export const BUILTIN_EXERCISE_IDS = [{}];\n",
        rows.join(",\n  "),
        ids.join(", ")
    )
}

/// The `Config` interface of the TypeScript declarations, from the table.
pub fn typescript_config() -> String {
    let mut out = String::from(
        "/** Settings of a scenario. Times in ms (clock times in ms since midnight), sizes in bytes. */\n\
         export interface Config {\n",
    );
    for s in &SETTINGS {
        let range = match s.unit {
            Unit::Choice(_) => String::new(),
            _ => format!(" ({} to {})", s.format_plain(s.min), s.format_plain(s.max)),
        };
        out.push_str(&format!(
            "  /** {}{range}. Attribute `{}`, flag `--{}`. */\n  {}: {};\n",
            s.help,
            s.attribute,
            s.flag,
            s.key,
            s.typescript()
        ));
    }
    out.push_str("}\n\n/** The element's attribute for every setting, written as a person writes it. */\nexport interface SettingAttributes {\n");
    for s in &SETTINGS {
        out.push_str(&format!("  /** {}. */\n  {:?}?: string;\n", s.label, s.attribute));
    }
    out.push_str("}\n");
    out
}
