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

/// Parses a size such as "512MB", "2GB" or "1.5GB" into bytes (decimal units; "GiB" is binary).
pub fn parse_bytes(text: &str) -> Result<u64, String> {
    let trimmed = text.trim();
    let size: bytesize::ByteSize =
        trimmed.parse().map_err(|_| format!("expected a size like 512MB or 2GB, got {text:?}"))?;
    Ok(size.as_u64())
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
