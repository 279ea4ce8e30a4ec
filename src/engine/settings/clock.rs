//! The scenario clock: virtual time as integer milliseconds since midnight, printed as
//! "HH:MM:SS" (or "HH:MM:SS.mmm" when the milliseconds are not zero).

use std::fmt;

/// Milliseconds in one day; the clock wraps at midnight when printed.
pub const DAY_MS: u64 = 24 * 3600 * 1000;

/// A point on the scenario clock, in milliseconds since midnight.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ClockTime(pub u64);

impl ClockTime {
    /// The clock text, written digit by digit (the report stamps every instant it lists).
    pub fn text(self) -> ClockText {
        let ms = self.0 % DAY_MS;
        let (h, m, s, milli) = (ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, ms % 1000);
        let digit = |n: u64| b'0' + n as u8;
        let mut bytes = [b':'; 12];
        bytes[0] = digit(h / 10);
        bytes[1] = digit(h % 10);
        bytes[3] = digit(m / 10);
        bytes[4] = digit(m % 10);
        bytes[6] = digit(s / 10);
        bytes[7] = digit(s % 10);
        let len = if milli == 0 {
            8
        } else {
            bytes[8] = b'.';
            bytes[9] = digit(milli / 100);
            bytes[10] = digit(milli / 10 % 10);
            bytes[11] = digit(milli % 10);
            12
        };
        ClockText { bytes, len: len as u8 }
    }
}

/// "HH:MM:SS" or "HH:MM:SS.mmm", on the stack: the report stamps every instant it lists, the
/// per-second samples included, without a string on the heap for each.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct ClockText {
    bytes: [u8; 12],
    len: u8,
}

impl ClockText {
    pub fn as_str(&self) -> &str {
        std::str::from_utf8(&self.bytes[..usize::from(self.len)]).expect("ASCII digits and separators")
    }
}

impl fmt::Display for ClockText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for ClockText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl PartialEq<&str> for ClockText {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl serde::Serialize for ClockText {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl fmt::Display for ClockTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.text().as_str())
    }
}

/// Parses "HH:MM:SS" or "HH:MM:SS.mmm" (also "HH:MM") into milliseconds since midnight.
pub fn parse_clock(text: &str) -> Result<u64, String> {
    let bad = || format!("expected a time like 10:00:45 or 10:00:45.500, got {text:?}");
    let (hms, milli) = match text.trim().split_once('.') {
        Some((hms, frac)) => {
            if frac.is_empty() || frac.len() > 3 || !frac.bytes().all(|b| b.is_ascii_digit()) {
                return Err(bad());
            }
            let padded = format!("{frac:0<3}");
            (hms, padded.parse::<u64>().map_err(|_| bad())?)
        }
        None => (text.trim(), 0),
    };
    let parts: Vec<&str> = hms.split(':').collect();
    if !(2..=3).contains(&parts.len()) {
        return Err(bad());
    }
    let mut fields = [0u64; 3];
    for (slot, part) in fields.iter_mut().zip(&parts) {
        if part.is_empty() || part.len() > 2 || !part.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        *slot = part.parse().map_err(|_| bad())?;
    }
    let [h, m, s] = fields;
    if h > 23 || m > 59 || s > 59 {
        return Err(bad());
    }
    Ok(((h * 60 + m) * 60 + s) * 1000 + milli)
}

/// Seconds as a float, for the `_s` companions of every time in the report.
pub fn seconds(ms: u64) -> f64 {
    ms as f64 / 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prints_and_parses_round_trip() {
        assert_eq!(ClockTime(36_000_000).to_string(), "10:00:00");
        assert_eq!(ClockTime(36_032_100).to_string(), "10:00:32.100");
        assert_eq!(ClockTime(DAY_MS + 3_723_004).to_string(), "01:02:03.004");
        assert_eq!(ClockTime(DAY_MS - 1).to_string(), "23:59:59.999");
        assert_eq!(ClockTime(0).to_string(), "00:00:00");
        // The same text as the formatting machinery gives, over a day in uneven steps.
        for ms in (0..DAY_MS).step_by(7_919).chain((0..5_000).map(|ms| 36_000_000 + ms)) {
            let (h, m, s, milli) = (ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, ms % 1000);
            let expected =
                if milli == 0 { format!("{h:02}:{m:02}:{s:02}") } else { format!("{h:02}:{m:02}:{s:02}.{milli:03}") };
            assert_eq!(ClockTime(ms).to_string(), expected);
        }
        assert_eq!(parse_clock("10:00:45").unwrap(), 36_045_000);
        assert_eq!(parse_clock("10:00:45.5").unwrap(), 36_045_500);
        assert_eq!(parse_clock("10:00").unwrap(), 36_000_000);
        for bad in ["", "10", "25:00:00", "10:60:00", "10:00:00.", "10:00:00.1234", "a:b:c"] {
            assert!(parse_clock(bad).is_err(), "{bad} should be rejected");
        }
    }
}
