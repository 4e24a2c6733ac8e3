//! Bad input never panics (DESIGN.md, "The chapter contract"): every
//! malformed program is an error whose offset points into the source.
//!
//! Not a port of a Java test. The inputs are every prefix of the programs
//! of this chapter's tests, single-character mutations of them, seeded
//! random bytes and token soups, unknown characters, huge literals and
//! deeply nested expressions (which this chapter does not have yet). A panic (including a stack overflow) fails the
//! test by itself; the checks below add that errors are well formed and
//! that results can be printed and drawn.

use chapter01::{CodeGen, Error};
use pretty_assertions::assert_eq;

/// The programs (and expected outputs, which are programs too) of this
/// chapter's ported tests.
const PROGRAMS: &[&str] = &[
    "return 1;",
    "return 0;",
    "ret",
    "Syntax error, expected a statement: ret",
    "return 0123;",
    "return --12;",
    "return 100",
    "Syntax error, expected ;: ",
    "return -100;",
    "return100",
    "Syntax error, expected a statement: return100",
    "return 1;}",
];

/// Compiles `src`. A success must print and draw; an error must point at a
/// character boundary of `src` (or its end) and have a line and column.
fn compile(src: &str) -> Result<String, Error> {
    let mut code = CodeGen::new(src);
    match code.parse() {
        Ok(code) => {
            let printed = code.print();
            assert!(!printed.is_empty(), "{src:?} prints nothing");
            let dot = code.dot();
            assert!(dot.starts_with("digraph"), "{src:?}: {dot}");
            Ok(printed)
        }
        Err(err) => {
            assert!(
                err.offset <= src.len(),
                "{src:?}: {err:?} is beyond the end"
            );
            assert!(
                src.is_char_boundary(err.offset),
                "{src:?}: {err:?} is inside a character"
            );
            assert!(!err.message.is_empty(), "{src:?}: {err:?}");
            let (line, col) = err.line_col(src);
            assert!(line >= 1 && col >= 1, "{src:?}: {err:?} at {line}:{col}");
            Err(err)
        }
    }
}

fn compile_ok(src: &str) -> String {
    compile(src).unwrap_or_else(|err| panic!("{src:?}: {err:?}"))
}

fn compile_err(src: &str) -> Error {
    match compile(src) {
        Ok(printed) => panic!("{src:?} compiled to {printed:?}"),
        Err(err) => err,
    }
}

/// Every prefix of `src`, from "" to `src` itself.
fn prefixes(src: &str) -> impl Iterator<Item = &str> {
    (0..=src.len())
        .filter(|&i| src.is_char_boundary(i))
        .map(|i| &src[..i])
}

/// A tiny deterministic generator (xorshift64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

#[test]
fn test_truncated_programs() {
    for program in PROGRAMS {
        for prefix in prefixes(program) {
            let _ = compile(prefix);
        }
    }
}

#[test]
fn test_mutated_programs() {
    const INSERTS: [&str; 8] = ["(", ")", "{", "}", ";", "-", "=", "if"];
    for program in PROGRAMS {
        let cuts: Vec<usize> = (0..=program.len())
            .filter(|&i| program.is_char_boundary(i))
            .collect();
        for w in cuts.windows(2) {
            // Without the character at w[0]...
            let _ = compile(&format!("{}{}", &program[..w[0]], &program[w[1]..]));
            // ...and with it doubled.
            let _ = compile(&format!("{}{}", &program[..w[1]], &program[w[0]..]));
        }
        for &at in &cuts {
            for insert in INSERTS {
                let _ = compile(&format!("{}{insert}{}", &program[..at], &program[at..]));
            }
        }
    }
}

#[test]
fn test_random_bytes() {
    let mut rng = Rng(0x5eed_5eed_5eed_5eed);
    for round in 0..4000 {
        let len = rng.below(64);
        let bytes: Vec<u8> = (0..len)
            .map(|_| {
                let b = rng.next() as u8;
                // Half the inputs stay ASCII, where the parser gets further.
                if round % 2 == 0 {
                    b & 0x7f
                } else {
                    b
                }
            })
            .collect();
        let src = String::from_utf8_lossy(&bytes);
        let _ = compile(&src);
    }
}

#[test]
fn test_random_tokens() {
    const TOKENS: &[&str] = &[
        "int",
        "a",
        "b",
        "arg",
        "=",
        "1",
        "0",
        "42",
        "+",
        "-",
        "*",
        "/",
        "(",
        ")",
        "{",
        "}",
        "if",
        "else",
        "return",
        ";",
        "==",
        "!=",
        "<",
        "<=",
        ">",
        ">=",
        "true",
        "false",
        "#showGraph",
        "!",
    ];
    const SEPARATORS: [&str; 3] = ["", " ", "\n"];
    let mut rng = Rng(0x0123_4567_89ab_cdef);
    for _ in 0..4000 {
        let mut src = String::new();
        for _ in 0..rng.below(40) {
            src.push_str(TOKENS[rng.below(TOKENS.len())]);
            src.push_str(SEPARATORS[rng.below(SEPARATORS.len())]);
        }
        let _ = compile(&src);
    }
}

#[test]
fn test_unknown_characters() {
    const CHARS: &[&str] = &[
        "@",
        "$",
        "#",
        "\u{00e9}",
        "\u{1F600}",
        "\0",
        "\u{7f}",
        "\u{feff}",
        "\\",
        "'",
        "\"",
        "`",
        "~",
        "%",
        "&",
        "|",
        "^",
        "!",
        "?",
        ":",
        ",",
        ".",
        "[",
        "]",
        "\r",
    ];
    for ch in CHARS {
        for src in [
            ch.to_string(),
            format!("return {ch};"),
            format!("return 1{ch};"),
            format!("return {ch}1;"),
            format!("return 1{ch}2;"),
            format!("int a{ch}=1; return a;"),
            format!("int {ch}=1; return {ch};"),
            format!("{ch}return 1;"),
            format!("return 1;{ch}"),
            format!("if(arg{ch}) return 1; return 2;"),
            format!("{{ {ch} }} return 1;"),
            format!("return 1+{ch}"),
        ] {
            for prefix in prefixes(&src) {
                let _ = compile(prefix);
            }
        }
    }
    for ch in [
        "@",
        "$",
        "#",
        "\u{1F600}",
        "`",
        "~",
        "%",
        "[",
        "?",
        "\u{00e9}",
    ] {
        let src = format!("return {ch};");
        let err = compile_err(&src);
        assert_eq!(err.offset, "return ".len(), "{src:?}: {err:?}");
        assert_eq!(err.message, "Syntax error, expected integer literal");
    }
    // Control characters up to the space are white space, as in Simple.
    assert_eq!(compile_ok("return\0 1\0;"), "return 1;");
}

#[test]
fn test_huge_literals() {
    let err = compile_err("return 99999999999999999999;");
    assert!(err.message.contains("out of range"), "{err:?}");
    assert_eq!(err.offset, "return ".len());
    let err = compile_err("return 9223372036854775808;");
    assert!(err.message.contains("out of range"), "{err:?}");
    let err = compile_err(&format!("return {};", "9".repeat(1000)));
    assert!(err.message.contains("out of range"), "{err:?}");
    assert_eq!(
        compile_ok("return 9223372036854775807;"),
        "return 9223372036854775807;"
    );
    // No unary minus in this chapter.
    assert_eq!(
        compile_err("return -9223372036854775807;").message,
        "Syntax error, expected integer literal"
    );
}

const DEPTH: usize = 10_000;

#[test]
fn test_deep_expressions() {
    // No parentheses, unary minus or operators yet: errors, quickly.
    for src in [
        format!("return {}1{};", "(".repeat(DEPTH), ")".repeat(DEPTH)),
        format!("return {}1;", "-".repeat(DEPTH)),
        format!("{}return 1;{}", "{".repeat(DEPTH), "}".repeat(DEPTH)),
    ] {
        let _ = compile_err(&src);
    }
    let terms = vec!["1"; DEPTH].join("+");
    let err = compile_err(&format!("return {terms};"));
    assert_eq!(err.message, "Syntax error, expected ;: +");
    assert_eq!(err.offset, "return 1".len());
}
