//! Turning untrusted seconds into a [`Duration`] without panicking: the one place
//! that does it, for flags and config values (`--timeout`, `--max-seconds`) and for
//! what servers send (`Retry-After`).
//!
//! `Duration::from_secs_f64` panics on negative, NaN, infinite or too-large input;
//! nothing in the workspace calls it on input. [`parse_secs`] rejects bad settings
//! with a readable error; [`clamp_secs`] bends a server's wish into `[0, max]`.

use std::time::Duration;

/// The longest duration a setting may ask for: 30 days. Anything longer is a
/// typo or an attack, and is far beyond any run this tool makes.
pub const MAX_SETTING: Duration = Duration::from_secs(30 * 24 * 3600);

/// A number of seconds that is not a usable duration.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{what}: {value} is not a duration in seconds ({why})")]
pub struct DurationError {
    /// The setting's name.
    pub what: String,
    /// The value as given.
    pub value: String,
    /// What is wrong with it.
    pub why: &'static str,
}

/// A duration setting given in seconds: finite, positive and at most [`MAX_SETTING`].
/// `what` names the setting in the error.
pub fn parse_secs(what: &str, secs: f64) -> Result<Duration, DurationError> {
    let err = |why| DurationError {
        what: what.to_string(),
        value: secs.to_string(),
        why,
    };
    if secs.is_nan() {
        return Err(err("not a number"));
    }
    if secs.is_infinite() {
        return Err(err("infinite"));
    }
    if secs <= 0.0 {
        return Err(err("it must be greater than 0"));
    }
    match Duration::try_from_secs_f64(secs) {
        Ok(d) if d <= MAX_SETTING => Ok(d),
        _ => Err(err("longer than 30 days")),
    }
}

/// A wait a remote party asked for, clamped to `[0, max]`: negative and NaN become 0,
/// anything too long (including infinity and values past `Duration::MAX`) becomes `max`.
pub fn clamp_secs(secs: f64, max: Duration) -> Duration {
    if secs.is_nan() || secs <= 0.0 {
        return Duration::ZERO;
    }
    Duration::try_from_secs_f64(secs).map_or(max, |d| d.min(max))
}

/// `d` scaled by `factor`, saturating instead of panicking (negative or NaN gives 0).
pub fn scale(d: Duration, factor: f64) -> Duration {
    clamp_secs(d.as_secs_f64() * factor, Duration::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_outside_range_are_errors_not_panics() {
        for bad in [
            -1.0,
            0.0,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            1e20,
            1e300,
        ] {
            assert!(parse_secs("timeout", bad).is_err(), "{bad}");
        }
        assert_eq!(
            parse_secs("timeout", 2.5).unwrap(),
            Duration::from_millis(2500)
        );
        let msg = parse_secs("max_seconds", -3.0).unwrap_err().to_string();
        assert!(msg.contains("max_seconds") && msg.contains("-3"), "{msg}");
    }

    #[test]
    fn server_waits_are_clamped() {
        let max = Duration::from_secs(30);
        assert_eq!(clamp_secs(1e20, max), max);
        assert_eq!(clamp_secs(f64::INFINITY, max), max);
        assert_eq!(clamp_secs(f64::MAX, max), max);
        assert_eq!(clamp_secs(-5.0, max), Duration::ZERO);
        assert_eq!(clamp_secs(f64::NAN, max), Duration::ZERO);
        assert_eq!(clamp_secs(2.0, max), Duration::from_secs(2));
        assert_eq!(scale(Duration::MAX, 2.0), Duration::MAX);
        assert_eq!(scale(Duration::from_secs(2), 0.5), Duration::from_secs(1));
    }
}
