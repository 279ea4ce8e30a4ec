//! Human units for settings: durations ("500ms", "30s", "5m"), sizes ("512MB", "2GB", decimal:
//! 1 GB = 10^9 bytes), bandwidths ("200MB/s") and their formatting for people ("4 GB/min").

/// Parses a duration such as "500ms", "30s", "2m" or "1h" into milliseconds.
pub fn parse_duration_ms(text: &str) -> Result<u64, String> {
    let trimmed = text.trim();
    if trimmed == "0" {
        return Ok(0);
    }
    let duration = humantime::parse_duration(trimmed)
        .map_err(|e| format!("expected a duration like 500ms, 30s or 5m, got {text:?} ({e})"))?;
    u64::try_from(duration.as_millis()).map_err(|_| format!("duration {text:?} is too long"))
}

/// Parses a size such as "512MB", "2GB" or "1.5GB" into bytes (decimal units; "GiB" is binary),
/// reading it as the `bytesize` crate does (a test holds the two together) without std's float
/// parser and its tables, which would be a tenth of the first chart's module.
pub fn parse_bytes(text: &str) -> Result<u64, String> {
    let bad = || format!("expected a size like 512MB or 2GB, got {text:?}");
    let trimmed = text.trim();
    if let Ok(bytes) = trimmed.parse::<u64>() {
        return Ok(bytes);
    }
    let number_len = trimmed.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(trimmed.len());
    let (number, unit) = trimmed.split_at(number_len);
    let factor = size_unit(unit.trim_start()).ok_or_else(bad)?;
    if !number.contains('.') {
        if let Ok(n) = number.parse::<u64>() {
            return Ok(n.saturating_mul(factor));
        }
    }
    let value = parse_decimal(number).ok_or_else(bad)?;
    Ok((factor as f64 * value) as u64)
}

/// The bytes in a size unit, by its name in any case: B, KB or K, KiB or Ki, up to EB and EiB.
fn size_unit(name: &str) -> Option<u64> {
    const UNITS: [(&str, &str, u64); 13] = [
        ("b", "b", 1),
        ("k", "kb", 1_000),
        ("m", "mb", 1_000_000),
        ("g", "gb", 1_000_000_000),
        ("t", "tb", 1_000_000_000_000),
        ("p", "pb", 1_000_000_000_000_000),
        ("e", "eb", 1_000_000_000_000_000_000),
        ("ki", "kib", 1 << 10),
        ("mi", "mib", 1 << 20),
        ("gi", "gib", 1 << 30),
        ("ti", "tib", 1 << 40),
        ("pi", "pib", 1 << 50),
        ("ei", "eib", 1 << 60),
    ];
    UNITS
        .iter()
        .find(|(short, long, _)| name.eq_ignore_ascii_case(short) || name.eq_ignore_ascii_case(long))
        .map(|&(_, _, factor)| factor)
}

/// Reads a decimal number ("0.01", "1.5", "-2", "5e-3", ".5") exactly as `str::parse::<f64>`
/// reads it, for up to 19 significant digits and a power of ten from 10^-21 up to where the
/// digits times it still fit in 128 bits: every setting a person types, and every value the
/// settings table writes (`{}` writes an f64 in at most 17 significant digits). Anything else
/// (more digits, "inf", "NaN", no digits) is `None`. In integer arithmetic rounded once, instead
/// of std's general algorithm and its tables, which would be a tenth of the first chart's module.
pub fn parse_decimal(text: &str) -> Option<f64> {
    let (negative, rest) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let (mantissa_text, exponent) = match rest.find(['e', 'E']) {
        Some(at) => (&rest[..at], parse_exponent(&rest[at + 1..])?),
        None => (rest, 0),
    };
    let (whole, fraction) = mantissa_text.split_once('.').unwrap_or((mantissa_text, ""));
    if whole.is_empty() && fraction.is_empty() {
        return None;
    }
    let digits = whole.bytes().chain(fraction.bytes());
    // Leading zeros carry nothing; trailing zeros of the fraction only move the point.
    let fraction = fraction.trim_end_matches('0');
    let mut significant = 0;
    let mut mantissa: u64 = 0;
    for digit in digits.take(whole.len() + fraction.len()) {
        if !digit.is_ascii_digit() {
            return None;
        }
        if mantissa > 0 || digit != b'0' {
            significant += 1;
            if significant > 19 {
                return None;
            }
        }
        mantissa = mantissa * 10 + u64::from(digit - b'0');
    }
    let power = exponent - fraction.len() as i32;
    let value = if mantissa == 0 {
        0.0
    } else if power >= 0 {
        // Exact in 128 bits, then rounded once to the nearest f64, ties to even, as `as` does.
        u128::from(mantissa).checked_mul(10u128.checked_pow(power.unsigned_abs())?)? as f64
    } else if power >= -21 {
        divided_by_power_of_ten(mantissa, power.unsigned_abs())
    } else {
        return None;
    };
    Some(if negative { -value } else { value })
}

/// `mantissa / 10^power`, correctly rounded, for a power up to 21 (10^21 < 2^70): the mantissa
/// shifted to the top of 128 bits divided by 10^power gives a quotient of at least 58 bits, and
/// one more bit set when the division leaves a remainder makes rounding that quotient to 53 bits
/// round the exact value.
fn divided_by_power_of_ten(mantissa: u64, power: u32) -> f64 {
    let shift = u128::from(mantissa).leading_zeros();
    let numerator = u128::from(mantissa) << shift;
    let divisor = 10u128.pow(power);
    let (quotient, remainder) = (numerator / divisor, numerator % divisor);
    let sticky = (quotient << 1) | u128::from(remainder != 0);
    // 2^-(shift + 1), exactly: the result stays far above the subnormal range.
    let scale = f64::from_bits(u64::from(1023 - (shift + 1)) << 52);
    sticky as f64 * scale
}

/// The exponent after an "e": an optional sign and at most three digits.
fn parse_exponent(text: &str) -> Option<i32> {
    let (negative, digits) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    if digits.is_empty() || digits.len() > 3 || !digits.bytes().all(|d| d.is_ascii_digit()) {
        return None;
    }
    let n: i32 = digits.parse().ok()?;
    Some(if negative { -n } else { n })
}

/// Parses a bandwidth such as "200MB/s" or "1GB/s" into bytes per second.
pub fn parse_bytes_per_s(text: &str) -> Result<u64, String> {
    let trimmed = text.trim();
    let Some(size) = trimmed.strip_suffix("/s") else {
        return Err(format!("expected a bandwidth like 200MB/s or 1GB/s, got {text:?}"));
    };
    parse_bytes(size).map_err(|_| format!("expected a bandwidth like 200MB/s or 1GB/s, got {text:?}"))
}

/// Formats bytes with decimal units and at most three significant digits: "2 GB", "512 MB".
pub fn format_bytes(bytes: f64) -> String {
    const UNITS: [(&str, f64); 5] = [("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("KB", 1e3), ("B", 1.0)];
    for (unit, scale) in UNITS {
        if bytes >= scale || unit == "B" {
            return format!("{} {unit}", three_digits(bytes / scale));
        }
    }
    unreachable!("the last unit always matches")
}

/// Formats a duration for people: "100 ms", "2.1 s", "5 min", "1 h 30 min".
pub fn format_duration_ms(ms: u64) -> String {
    if ms < 1000 {
        format!("{ms} ms")
    } else if ms < 60_000 {
        format!("{} s", three_digits(ms as f64 / 1000.0))
    } else if ms < 3_600_000 {
        let (m, s) = (ms / 60_000, (ms % 60_000) as f64 / 1000.0);
        if s == 0.0 {
            format!("{m} min")
        } else {
            format!("{m} min {} s", three_digits(s))
        }
    } else {
        let (h, m) = (ms / 3_600_000, ms % 3_600_000 / 60_000);
        if m == 0 {
            format!("{h} h")
        } else {
            format!("{h} h {m} min")
        }
    }
}

/// Formats an integer with thousands separators: 30000 becomes "30,000".
pub fn format_count(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn three_digits(x: f64) -> String {
    let text = if x >= 100.0 {
        format!("{x:.0}")
    } else if x >= 10.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.2}")
    };
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_lesson_units() {
        assert_eq!(parse_duration_ms("500ms").unwrap(), 500);
        assert_eq!(parse_duration_ms("30s").unwrap(), 30_000);
        assert_eq!(parse_duration_ms("5m").unwrap(), 300_000);
        assert_eq!(parse_bytes("2GB").unwrap(), 2_000_000_000);
        assert_eq!(parse_bytes("512MB").unwrap(), 512_000_000);
        assert_eq!(parse_bytes_per_s("200MB/s").unwrap(), 200_000_000);
        assert_eq!(parse_bytes_per_s("1GB/s").unwrap(), 1_000_000_000);
        assert!(parse_duration_ms("fast").is_err());
        assert!(parse_bytes("lots").is_err());
        assert!(parse_bytes_per_s("1GB").is_err());
    }

    #[test]
    fn formats_for_people() {
        assert_eq!(format_count(30_000), "30,000");
        assert_eq!(format_count(1_090_000), "1,090,000");
        assert_eq!(format_count(7), "7");
        assert_eq!(format_bytes(4e9), "4 GB");
        assert_eq!(format_bytes(512e6), "512 MB");
        assert_eq!(format_duration_ms(2_100), "2.1 s");
        assert_eq!(format_duration_ms(55_000), "55 s");
        assert_eq!(format_duration_ms(300_000), "5 min");
    }
}
