//! Printing a `flt` the way Simple prints it: as Java prints a `double`.
//!
//! Simple is written in Java, and everything it shows of a float (the
//! printed program, the scheduled listing, a constant in a graph, the value
//! the evaluator returns) goes through Java's `Double.toString`. To hold
//! our output against the course, we print the same text. Java's rule has
//! two halves:
//!
//! - **Which digits.** As few as read back as the same double, but at
//!   least two; of the decimals of that length that read back, the one
//!   nearest to the double (Java 19 on). Rust's `{:e}` gives the fewest
//!   digits but not always the nearest of them, so we round to that many
//!   digits ourselves. Two digits are `d.0` except for the very smallest
//!   doubles (`5e-324` prints as `4.9E-324`).
//! - **How they are laid out.** With the digits `d1 d2 ... dn` and the
//!   value `d1.d2...dn × 10^e`: if `-3 <= e < 7`, plain decimal, with at
//!   least one digit after the point (`3.14`, `18.0`, `0.001`,
//!   `1234567.0`); otherwise one digit, a point, at least one more digit,
//!   `E` and the exponent, with `-` but no `+` (`1.0E7`, `1.0E-5`,
//!   `1.2345E-10`). Zero keeps its sign (`0.0`, `-0.0`), and the
//!   non-numbers are `NaN`, `Infinity` and `-Infinity`.
//!
//! This is the one place that knows the rule; [`crate::types`] and the
//! evaluators' [`crate::eval::Value`] call [`format`].

/// `x` as Java's `Double.toString(x)` shows it.
pub fn format(x: f64) -> String {
    if x.is_nan() {
        return "NaN".into();
    }
    let sign = if x.is_sign_negative() { "-" } else { "" };
    if x.is_infinite() {
        return format!("{sign}Infinity");
    }
    if x == 0.0 {
        return format!("{sign}0.0");
    }
    // How many digits: the fewest that read back as `x` (Rust's `{:e}`
    // finds them), but at least two.
    let shortest = format!("{:e}", x.abs());
    let len = shortest.find('e').expect("{:e} has an exponent");
    let n = shortest[..len].replace('.', "").len().max(2);
    // Which digits: of all decimals of that length that read back as `x`,
    // Java takes the one nearest to `x`. That is `x` correctly rounded to
    // `n` digits, unless rounding leaves the values that read back as `x`
    // (possible where the gap to the next double changes, at a power of
    // two); the shortest digits are then the answer.
    let nearest = format!("{:.*e}", n - 1, x.abs());
    let sci = if nearest.parse::<f64>() == Ok(x.abs()) {
        nearest
    } else {
        shortest
    };
    let (mantissa, exp) = sci.split_once('e').expect("{:e} has an exponent");
    let exp: i32 = exp.parse().expect("{:e} has a decimal exponent");
    let digits: String = mantissa.chars().filter(|&c| c != '.').collect();
    let digits = match digits.trim_end_matches('0') {
        "" => "0",
        d => d,
    };
    if (-3..7).contains(&exp) {
        let (int, frac) = if exp >= 0 {
            // `exp + 1` digits before the point, padded with zeros.
            let split = exp as usize + 1;
            if digits.len() > split {
                (digits[..split].to_owned(), digits[split..].to_owned())
            } else {
                (format!("{digits:0<split$}"), String::new())
            }
        } else {
            // `-exp - 1` zeros after the point, then the digits.
            let zeros = "0".repeat((-exp - 1) as usize);
            ("0".to_owned(), format!("{zeros}{digits}"))
        };
        let frac = if frac.is_empty() { "0" } else { &frac };
        format!("{sign}{int}.{frac}")
    } else {
        let (first, rest) = digits.split_at(1);
        let rest = if rest.is_empty() { "0" } else { rest };
        format!("{sign}{first}.{rest}E{exp}")
    }
}

#[cfg(test)]
// The decimals are the subject here (how Java prints 3.14), not approximations.
#[allow(clippy::approx_constant)]
mod tests {
    use super::format;
    use pretty_assertions::assert_eq;

    #[track_caller]
    fn java(x: f64, expected: &str) {
        assert_eq!(format(x), expected, "{x:?}");
    }

    #[test]
    fn plain_decimals() {
        java(3.14, "3.14");
        java(18.0, "18.0");
        java(1.0, "1.0");
        java(-2.5, "-2.5");
        java(0.5, "0.5");
        java(100.0, "100.0");
        java(1.414213562373095, "1.414213562373095");
        java(0.1 + 0.2, "0.30000000000000004");
        java(123456.789, "123456.789");
    }

    #[test]
    fn the_edges_of_plain_layout() {
        // 10^-3 is the smallest plain value, 10^7 the first in E form.
        java(0.001, "0.001");
        java(-0.001, "-0.001");
        java(0.0015, "0.0015");
        java(0.000999, "9.99E-4");
        java(9999999.0, "9999999.0");
        java(9999999.999999998, "9999999.999999998");
        java(1e7, "1.0E7");
        java(-1e7, "-1.0E7");
        java(12345678.0, "1.2345678E7");
    }

    #[test]
    fn exponent_form() {
        java(1e10, "1.0E10");
        java(1e-5, "1.0E-5");
        java(1.5e-5, "1.5E-5");
        java(1e21, "1.0E21");
        java(1.2345e-10, "1.2345E-10");
        java(f64::MAX, "1.7976931348623157E308");
        java(f64::MIN_POSITIVE, "2.2250738585072014E-308");
        java(5e-324, "4.9E-324");
        java(1e-323, "9.9E-324");
        java(1e23, "1.0E23");
        // Two decimals of this length read back as each of these; Rust's
        // `{:e}` ends them in 3, Java (and we) in the nearer 2.
        java(9.343564172201942e14, "9.343564172201942E14");
        java(-2.0156234722508762e14, "-2.0156234722508762E14");
        java(-3e100, "-3.0E100");
    }

    #[test]
    fn zeros_and_non_numbers() {
        java(0.0, "0.0");
        java(-0.0, "-0.0");
        java(f64::NAN, "NaN");
        java(-f64::NAN, "NaN");
        java(f64::INFINITY, "Infinity");
        java(f64::NEG_INFINITY, "-Infinity");
    }

    #[test]
    fn reads_back_as_the_same_double() {
        for x in [
            3.14,
            0.1,
            2.0 / 3.0,
            1e-5,
            6.02214076e23,
            1e7 + 0.5,
            0.001 / 3.0,
        ] {
            let printed = format(x).replace('E', "e");
            assert_eq!(printed.parse::<f64>(), Ok(x), "{x:?} printed {printed}");
        }
    }
}
