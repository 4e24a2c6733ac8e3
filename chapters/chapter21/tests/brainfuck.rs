//! Port of Simple's chapter 19 `BrainFuckTest.java`: a Brainfuck
//! interpreter written in Simple, with `u8[]` arrays for the program, the
//! data and the output, in chapter 17's sugar (`for`, `var`, `++`).

use chapter21::{CodeGen, Outcome};
use pretty_assertions::assert_eq;

/// Java: `code.parse().opto().typeCheck().GCM()` (and the local schedule,
/// which its evaluator runs itself).
fn parse_iterated(src: &str) -> CodeGen {
    let mut code = CodeGen::new(src);
    code.parse().unwrap().iterate().unwrap();
    code
}

/// Both evaluators, run with `arg`, return a value shown as `expected`.
#[track_caller]
fn assert_shows(code: &CodeGen, arg: i64, loops: usize, expected: &str) {
    for (how, outcome) in [
        ("eval", code.eval(arg, loops)),
        ("eval_scheduled", code.eval_scheduled(arg, loops)),
    ] {
        let Outcome::Value(v) = outcome else {
            panic!("{how}, arg {arg}: {outcome:?}");
        };
        assert_eq!(v.to_string(), expected, "{how}, arg {arg}");
    }
}

/// A Brainfuck interpreter in Simple, run
/// on a program that prints "Hello World!\n". The program's bytes are
/// stored one by one into a `u8[]` (the Java builds the same text), and
/// the output is a `u8[]`, which shows as its characters.
#[test]
fn test_brainfuck() {
    let program = "++++++++[>++++[>++>+++>+++>+<<<<-]>+>+>->>+[<]<-]>>.>---.+++++++..+++.>>.<-.<.+++.------.--------.>>+.>++.";
    let mut src = String::from("u8[] !program = new u8[106];");
    for (i, b) in program.bytes().enumerate() {
        src.push_str(&format!("program[{i}] = {b};"));
    }
    src.push_str(
        "
int d = 0;
u8[] !output = new u8[0];
u8[] !data = new u8[100];

for( int pc = 0; pc < program#; pc++ ) {
    var command = program[pc];
    if (command == 62) {
        d++;
    } else if (command == 60) {
        d--;
    } else if (command == 43) {
        data[d]++;
    } else if (command == 45) {
        data[d]--;
    } else if (command == 46) {
        // Output a byte; increase the output array size
        var old = output;
        output = new u8[output# + 1];
        for( int i = 0; i < old#; i++ )
            output[i] = old[i];
        output[old#] = data[d]; // Add the extra byte on the end
    } else if (command == 44) {
        data[d] = 42;
    } else if (command == 91) {
        if (data[d] == 0) {
            for( int d = 1; d > 0; ) {
                command = program[++pc];
                if (command == 91) d++;
                if (command == 93) d--;
            }
        }
    } else if (command == 93) {
        if (data[d]) {
            for( int d = 1; d > 0; ) {
                command = program[--pc];
                if (command == 93) d++;
                if (command == 91) d--;
            }
        }
    }
}
return output;
",
    );
    let code = parse_iterated(&src);
    assert_shows(&code, 0, 10000, "Hello World!\n");
}
