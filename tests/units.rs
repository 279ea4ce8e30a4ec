//! The engine's own number and size parsers against the readers they stand in for: a decimal
//! is read exactly as `str::parse::<f64>` reads it, a size exactly as the `bytesize` crate does,
//! on every input either of ours accepts; ours accept everything a person types for a setting
//! (up to 19 significant digits) and read back every share and multiplier the settings table
//! writes.
#![cfg(not(target_arch = "wasm32"))]

use checkpoint_lab::engine::settings::units::{parse_bytes, parse_decimal};
use checkpoint_lab::engine::settings::{by_key, FieldValue};
use proptest::prelude::*;

/// Counts the digits of a decimal's mantissa without leading zeros or the fraction's trailing
/// zeros ("0.0120" has 2, "1000." has 4): what has to fit in 19 digits.
fn significant_digits(text: &str) -> usize {
    let mantissa = text.split(['e', 'E']).next().unwrap_or("");
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits: String =
        format!("{whole}{}", fraction.trim_end_matches('0')).chars().filter(char::is_ascii_digit).collect();
    digits.trim_start_matches('0').len()
}

/// The power of ten the mantissa's digits are scaled by ("1.50e3" is 15 × 10^2).
fn power_of_ten(text: &str) -> i32 {
    let (mantissa, exponent) = text.split_once(['e', 'E']).unwrap_or((text, "0"));
    let fraction = mantissa.split_once('.').map_or("", |(_, f)| f).trim_end_matches('0');
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    // Zero is read whatever its power.
    if digits.trim_start_matches('0').is_empty() {
        return 0;
    }
    exponent.parse::<i32>().unwrap_or(0) - fraction.len() as i32
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(20_000))]

    /// Whatever ours reads, std reads the same; and a number of the lesson's shape, which std
    /// reads, ours reads too.
    #[test]
    fn a_decimal_reads_as_std_reads_it(text in r"[+-]?[0-9]{0,20}(\.[0-9]{0,22})?([eE][+-]?[0-9]{1,2})?") {
        let std = text.parse::<f64>().ok();
        match parse_decimal(&text) {
            Some(ours) => prop_assert_eq!(Some(ours.to_bits()), std.map(f64::to_bits), "{}", text),
            // Refused only beyond 19 digits, below 10^-21, or beyond 128 bits.
            None => prop_assert!(std.is_none() || significant_digits(&text) > 19 || power_of_ten(&text) < -21
                || (power_of_ten(&text) >= 0 && 10f64.powi(significant_digits(&text) as i32 + power_of_ten(&text)) > 2f64.powi(127)),
                "refused {:?}, std reads {:?}", text, std),
        }
    }

    /// Near the ends of what ours reads (19 digits, powers down to 10^-21, where the quotient it
    /// rounds keeps the fewest spare bits), every number reads to std's bits.
    #[test]
    fn long_mantissas_at_small_powers_read_as_std_reads_them(mantissa in 1u64..10_000_000_000_000_000_000, power in -21i32..=-12) {
        let text = format!("{mantissa}e{power}");
        prop_assert_eq!(parse_decimal(&text).map(f64::to_bits), text.parse::<f64>().ok().map(f64::to_bits), "{}", text);
    }

    /// Every share and multiplier the settings table writes (an attribute, a shared link) reads
    /// back to the same value, down to a share of 10^-5.
    #[test]
    fn what_the_settings_table_writes_reads_back(share in 1e-5f64..=0.5, factor in 1.01f64..=10.0) {
        for (key, value) in [("retry_rate", share), ("backoff_multiplier", factor)] {
            let setting = by_key(key).unwrap();
            let text = setting.text(&serde_json::Value::from(value));
            let read = setting.parse_text(&text).map_err(TestCaseError::fail)?;
            prop_assert!(matches!(read, FieldValue::Number(n) if n.to_bits() == value.to_bits()), "{} {:?} read {:?}", key, text, read);
        }
    }

    /// Any text at all: ours never reads what std refuses, nor differently.
    #[test]
    fn any_text_reads_as_std_or_not_at_all(text in r"[0-9.eE+-]{0,12}|\PC{0,8}") {
        if let Some(ours) = parse_decimal(&text) {
            prop_assert_eq!(text.parse::<f64>().ok().map(f64::to_bits), Some(ours.to_bits()), "{}", text);
        }
    }

    /// Whatever size ours reads, bytesize reads the same; a size of the lesson's shape, which
    /// bytesize reads, ours reads too.
    #[test]
    fn a_size_reads_as_bytesize_reads_it(
        text in r"[0-9]{0,13}(\.[0-9]{0,4})? ?(b|B|k|kb|KB|kB|m|MB|mb|g|GB|Gb|t|TB|p|PB|e|EB|ki|KiB|mi|MiB|gi|GiB|ti|TiB|pi|PiB|ei|EiB|x|GBs|)"
    ) {
        let theirs = text.trim().parse::<bytesize::ByteSize>().ok().map(|b| b.as_u64());
        match parse_bytes(&text) {
            Ok(ours) => prop_assert_eq!(Some(ours), theirs, "{}", text),
            Err(_) => prop_assert!(theirs.is_none() || significant_digits(&text) > 15, "refused {:?}, bytesize reads {:?}", text, theirs),
        }
    }
}

#[test]
fn the_settings_numbers_read_exactly() {
    for text in [
        "0.01",
        "1",
        "1.5",
        "0.05",
        "2.5",
        "0.3",
        "1e-2",
        ".5",
        "5.",
        "-0.5",
        "0.1",
        "0.7",
        "100",
        "1.2100000000000002",
        "0.3333333333333333",
        "0.000012345678901234567",
        "9999999999999999999",
        "1e21",
    ] {
        assert_eq!(parse_decimal(text).map(f64::to_bits), text.parse::<f64>().ok().map(f64::to_bits), "{text}");
    }
    for text in
        ["", ".", "-", "e5", "1e", "1.2.3", "inf", "NaN", "1_000", "0x10", "1e1000", "12345678901234567890", "1e-22"]
    {
        assert_eq!(parse_decimal(text), None, "{text}");
    }
    assert_eq!(parse_bytes("1.5GB"), Ok(1_500_000_000));
    assert_eq!(parse_bytes("2 GiB"), Ok(2 << 30));
    assert_eq!(parse_bytes("512"), Ok(512));
    assert!(parse_bytes("1.5 parsecs").is_err());
}
