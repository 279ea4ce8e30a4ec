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
    /// The slider's steps for the default scenario (see `lesson::view::steps`).
    default_steps: crate::lesson::view::StepsView,
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
                (_, Some(value)) => Some(crate::lesson::view::readout(s, value, defaults.start_time_ms)),
            };
            let default_steps = crate::lesson::view::steps(s, &defaults);
            let ui = UiSetting { setting: *s, default, default_readout, default_steps };
            serde_json::to_string(&ui).expect("a setting serialises")
        })
        .collect();
    let ids: Vec<String> = crate::lesson::exercise::Exercise::builtin()
        .iter()
        .map(|e| serde_json::to_string(&e.id).expect("an id serialises"))
        .collect();
    let catalogue = crate::lesson::view::catalogue();
    let lists: String = catalogue
        .iter()
        .map(|(name, value)| match *name {
            // Pairs in order, read into an object whose keys keep that order.
            "SCENARIOS" => format!(
                "export const {name} = Object.fromEntries({});\n",
                serde_json::to_string(value).expect("serialises")
            ),
            _ => format!("export const {name} = {};\n", serde_json::to_string(value).expect("serialises")),
        })
        .collect();
    format!(
        "// Generated from src/engine/settings/table.rs (the one table of settings), src/lesson/view.rs (the\n\
         // page's fixed lists) and the built-in exercises (src/lesson/exercise/builtin.json) by\n\
         // `UPDATE_GENERATED=1 cargo test --test generated`.\n\
         // Do not edit: change the table, the lists or the exercises instead.\n\
         export const SETTINGS = [\n  {}\n];\n\n\
         // The page's scenarios, charts, sinks and headline figures (src/lesson/view.rs).\n\
         {lists}\n\
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
    let names = |list: &mut dyn Iterator<Item = &str>| list.map(|n| format!("{n:?}")).collect::<Vec<_>>().join(" | ");
    let scenarios = names(&mut crate::lesson::scenarios::SCENARIOS.iter().map(|s| s.key));
    let views = names(&mut crate::lesson::view::CHARTS.iter().map(|c| c.0).chain(["figures", "crash-table"]));
    out.push_str(&format!(
        "\n/** The named scenarios (src/lesson/scenarios.rs). */\nexport type ScenarioName = {scenarios};\n\n\
         /** What the `charts` option may name: a chart, the headline figures or the crash table. */\n\
         export type ViewName = {views};\n"
    ));
    out
}
