//! The page's controls and the TypeScript `Config` declaration, written from the engine's table of
//! settings: `www/settings.js` (the page builds its sliders and selects from it and the element
//! observes its attributes; it also lists the built-in exercises' ids) and a block of
//! `checkpoint-lab.d.ts`; and the settings reference for people (`docs/settings.md`). All are
//! generated; `tests/generated.rs` keeps the files current.

use serde::Serialize;
use serde_json::Value;

use crate::engine::settings::config::Config;
use crate::engine::settings::units::format_count;
use crate::engine::settings::{Control, Setting, Unit, SETTINGS};

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
    out.push_str(
        "}\n\n/** The element's attribute for every setting, written as a person writes it (\"30s\", \"2GB\",\n \
         * \"10:00:45\"); a choice takes its attribute value or its config value. */\nexport interface SettingAttributes {\n",
    );
    let defaults = Config::default();
    for s in &SETTINGS {
        out.push_str(&format!(
            "  /** {}{}; default `{}`. */\n  {:?}?: {};\n",
            s.help,
            attribute_range(s),
            s.text(&defaults.get(s.key).unwrap_or(Value::Null)),
            s.attribute,
            attribute_type(s)
        ));
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

/// What an attribute of `<checkpoint-lab>` accepts for a setting, as a TypeScript type: a choice's
/// attribute and config values (the element reads both), any other text otherwise (a duration, a
/// size, a clock time, a count; "none" where the setting may be left out).
pub fn attribute_type(s: &Setting) -> String {
    match s.unit {
        Unit::Choice(choices) => {
            let mut names: Vec<&str> = Vec::new();
            for c in choices {
                for name in [c.flag_value, c.value] {
                    if !names.contains(&name) {
                        names.push(name);
                    }
                }
            }
            if s.optional {
                names.push("none");
            }
            names.iter().map(|n| format!("{n:?}")).collect::<Vec<_>>().join(" | ")
        }
        _ => "string".into(),
    }
}

/// A setting's range as its attribute reads it (" (100ms to 1h)"), empty for a choice. (A setting
/// that may be left out says so in its help: "or none".)
fn attribute_range(s: &Setting) -> String {
    match s.unit {
        Unit::Choice(_) => String::new(),
        _ => format!(" ({} to {})", s.text(&Value::from(s.min)), s.text(&Value::from(s.max))),
    }
}

/// The settings reference (`docs/settings.md`): one row per setting with its config key, element
/// attribute, command-line flag, unit, allowed range, default and description, from the table.
pub fn markdown_reference() -> String {
    let defaults = Config::default();
    let mut out = String::from(
        "# Settings\n\n\
         <!-- Generated from src/engine/settings/table.rs by `UPDATE_GENERATED=1 cargo test --test generated`.\n\
         Do not edit: change the table instead. -->\n\n\
         Every setting of a scenario, written once in the table in `src/engine/settings/table.rs`. The same\n\
         setting is a key of `simulate(config)`, `mount(element, options)` and the report's `config`,\n\
         an attribute of `<checkpoint-lab>` and a flag of `checkpoint-lab simulate`. Attributes and\n\
         flags read values as people write them (`30s`, `2GB`, `200MB/s`, `10:00:45`, `1%`,\n\
         `micro-batch`; `none` where a setting may be left out); config keys take numbers in the\n\
         unit's base (milliseconds, bytes, bytes per second, milliseconds since midnight) or the\n\
         choice's value (`\"micro_batch\"`). Sizes are decimal: 1 GB = 10^9 bytes. A value out of\n\
         range is an error naming the key (or attribute, or flag) and the range; a valid value runs\n\
         as given, never rounded to a slider step. One run may use at most 512 MB of simulated state;\n\
         a larger scenario is refused up front. The defaults are the lesson's worked example, written\n\
         as an attribute or a flag reads them; \"on the page\" says where the lesson page shows a\n\
         control for the setting.\n\n\
         | key | attribute | flag | unit | range | default | on the page | description |\n\
         |---|---|---|---|---|---|---|---|\n",
    );
    for s in &SETTINGS {
        let unit = match s.unit {
            Unit::Count => "count",
            Unit::EventsPerS => "events/s",
            Unit::Seed => "seed",
            Unit::DurationMs => "duration (ms)",
            Unit::Bytes => "bytes",
            Unit::BytesPerS => "bytes/s",
            Unit::ClockMs => "clock time (ms since midnight)",
            Unit::ClockList => "clock times (ms since midnight), comma-separated",
            Unit::Share => "share (0 to 1)",
            Unit::Factor => "multiplier",
            Unit::Choice(_) => "choice",
        };
        let mut range = match s.unit {
            // A choice's values as attributes and flags spell them, with the page's name where it
            // says more than the value.
            Unit::Choice(choices) => choices
                .iter()
                .map(|c| match c.label {
                    label if label == c.value || label == c.flag_value => format!("`{}`", c.flag_value),
                    label => format!("`{}` ({label})", c.flag_value),
                })
                .collect::<Vec<_>>()
                .join(", "),
            Unit::Count | Unit::EventsPerS => {
                format!("{} to {}", format_count(s.min as u64), format_count(s.max as u64))
            }
            _ => format!("{} to {}", s.format_plain(s.min), s.format_plain(s.max)),
        };
        if s.optional {
            range.push_str(", or `none`");
        }
        let default = defaults.get(s.key).unwrap_or(Value::Null);
        let control = match s.control {
            Control::None => "",
            Control::Main => "main controls",
            Control::Advanced => "more settings",
        };
        out.push_str(&format!(
            "| `{}` | `{}` | `--{}` | {unit} | {} | `{}` | {control} | {}. |\n",
            s.key,
            s.attribute,
            s.flag,
            range.replace('|', "\\|"),
            s.text(&default),
            s.help.replace('|', "\\|"),
        ));
    }
    out
}
