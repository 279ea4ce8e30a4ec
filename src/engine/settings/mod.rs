//! The scenario's settings: the one table of settings (key, type, default, attribute, flag, unit,
//! range, slider steps, label, help), the `Config` it declares with its defaults (the lesson's
//! worked example) and validates, and the human units and clock times the settings are written
//! and read in.

pub mod clock;
pub mod config;
pub mod table;
pub mod units;

pub use table::{
    by_attribute, by_key, format_unit, Choice, ConfigError, Control, FieldValue, Setting, Steps, Unit,
    MAX_SAFE_INTEGER, SETTINGS,
};
