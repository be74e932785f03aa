//! The `Range` header of a request for an archive (RFC 9110 §14), resolved against the
//! file's size: the whole file, one part, or a range that cannot be served.
//!
//! Replay tools (pywb's `archive_paths: http://…`, OpenWayback's remote resource store)
//! ask for one record at a time as `bytes=OFFSET-END`, so one range is served as a part.
//! A request for several ranges is answered with the whole file: RFC 9110 lets a server
//! ignore `Range`, and a `multipart/byteranges` answer is a format no replay tool reads,
//! built for a client that could as well send one request per range. A range unit other
//! than `bytes` is ignored (RFC 9110 §14.2 requires it). A malformed `bytes` range, or
//! one wholly past the end, cannot be served (416).

/// What to send for a request's `Range` header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RangeAnswer {
    /// The whole file, 200.
    Whole,
    /// Bytes `start..=end` of the file, 206.
    Part {
        /// The first byte.
        start: u64,
        /// The last byte (inclusive, as `Content-Range` counts).
        end: u64,
    },
    /// No byte can be sent, 416; says why.
    Unsatisfiable(&'static str),
}

/// The answer to a `Range` header `value` (`None`: no header) for a file of `size` bytes.
pub fn resolve(value: Option<&[u8]>, size: u64) -> RangeAnswer {
    let Some(value) = value else {
        return RangeAnswer::Whole;
    };
    let Ok(value) = std::str::from_utf8(value) else {
        return RangeAnswer::Unsatisfiable("the Range header is not text");
    };
    let Some((unit, set)) = value.split_once('=') else {
        return RangeAnswer::Unsatisfiable("the Range header is not UNIT=RANGES");
    };
    if !unit.trim().eq_ignore_ascii_case("bytes") {
        return RangeAnswer::Whole;
    }
    // A list may hold empty elements (RFC 9110 §5.6.1); only the first two non-empty
    // ones are looked at, however many there are.
    let mut specs = set.split(',').map(str::trim).filter(|s| !s.is_empty());
    let spec = match (specs.next(), specs.next()) {
        (Some(spec), None) => spec,
        (None, _) => return RangeAnswer::Unsatisfiable("the Range header names no range"),
        (Some(_), Some(_)) => return RangeAnswer::Whole,
    };
    let malformed = RangeAnswer::Unsatisfiable("a byte range is FIRST-LAST, FIRST- or -SUFFIX");
    let Some((first, last)) = spec.split_once('-') else {
        return malformed;
    };
    let past_the_end = RangeAnswer::Unsatisfiable("the range starts past the end of the file");
    match (number(first), number(last)) {
        // `-SUFFIX`: the last SUFFIX bytes, the whole file if it is shorter.
        (None, Some(suffix)) if first.is_empty() => match (suffix, size) {
            (0, _) | (_, 0) => RangeAnswer::Unsatisfiable("the suffix range is empty"),
            _ => RangeAnswer::Part {
                start: size - suffix.min(size),
                end: size - 1,
            },
        },
        // `FIRST-`: from FIRST to the end.
        (Some(start), None) if last.is_empty() => match start < size {
            true => RangeAnswer::Part {
                start,
                end: size - 1,
            },
            false => past_the_end,
        },
        (Some(start), Some(end)) if start <= end => match start < size {
            true => RangeAnswer::Part {
                start,
                end: end.min(size - 1),
            },
            false => past_the_end,
        },
        _ => malformed,
    }
}

/// A byte position: ASCII digits only; a number too large for `u64` is `u64::MAX`, past
/// the end of any file. `None` for anything else (an empty string included).
fn number(s: &str) -> Option<u64> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(s.parse().unwrap_or(u64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(v: &str, size: u64) -> RangeAnswer {
        resolve(Some(v.as_bytes()), size)
    }

    fn part(start: u64, end: u64) -> RangeAnswer {
        RangeAnswer::Part { start, end }
    }

    fn unsatisfiable(a: RangeAnswer) -> bool {
        matches!(a, RangeAnswer::Unsatisfiable(_))
    }

    #[test]
    fn one_range() {
        assert_eq!(resolve(None, 10), RangeAnswer::Whole);
        assert_eq!(r("bytes=0-0", 10), part(0, 0));
        assert_eq!(r("bytes=2-5", 10), part(2, 5));
        assert_eq!(r("bytes=2-99", 10), part(2, 9), "the end is clamped");
        assert_eq!(r("bytes=2-", 10), part(2, 9));
        assert_eq!(r("bytes=-3", 10), part(7, 9));
        assert_eq!(
            r("bytes=-30", 10),
            part(0, 9),
            "a suffix longer than the file"
        );
        assert_eq!(
            r(" Bytes = 2-5 , ", 10),
            part(2, 5),
            "case, spaces, empty elements"
        );
        assert_eq!(
            r("bytes=0-99999999999999999999999", 10),
            part(0, 9),
            "an end too large for u64"
        );
    }

    #[test]
    fn unsatisfiable_and_malformed() {
        for v in [
            "bytes=10-",
            "bytes=10-20",
            "bytes=99999999999999999999999-",
            "bytes=-0",
            "bytes=5-2",
            "bytes=",
            "bytes=,",
            "bytes=-",
            "bytes=a-b",
            "bytes=1",
            "bytes=+1-2",
            "bytes=1 - 2",
            "bytes=0x1-2",
            "0-5",
        ] {
            assert!(unsatisfiable(r(v, 10)), "{v}");
        }
        assert!(unsatisfiable(r("bytes=0-", 0)), "an empty file");
        assert!(unsatisfiable(r("bytes=-1", 0)), "an empty file");
        assert!(unsatisfiable(resolve(Some(b"bytes=\xff-1"), 10)));
    }

    #[test]
    fn other_units_and_several_ranges_are_the_whole_file() {
        assert_eq!(r("items=0-5", 10), RangeAnswer::Whole);
        assert_eq!(r("bytes=0-1,3-4", 10), RangeAnswer::Whole);
        assert_eq!(r("bytes=0-1,garbage", 10), RangeAnswer::Whole);
        let many = format!("bytes={}", "0-0,".repeat(100_000));
        assert_eq!(r(&many, 10), RangeAnswer::Whole);
    }
}
