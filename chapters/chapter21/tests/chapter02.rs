//! Port of Simple's chapter 19 `Chapter02Test.java`.

use chapter21::CodeGen;
use pretty_assertions::assert_eq;

fn print(src: &str) -> String {
    let mut code = CodeGen::new(src);
    code.parse().unwrap().print()
}

/// Chapter 19: Simple no longer turns peepholes off (its chapter 19 test
/// parses with them).
#[test]
fn test_parse_grammar() {
    assert_eq!(print("return 1+2*3+-5;"), "return 2;");
}

#[test]
fn test_add_peephole() {
    assert_eq!(print("return 1+2;"), "return 3;");
}

#[test]
fn test_sub_peephole() {
    assert_eq!(print("return 1-2;"), "return -1;");
}

#[test]
fn test_mul_peephole() {
    assert_eq!(print("return 2*3;"), "return 6;");
}

#[test]
fn test_div_peephole() {
    assert_eq!(print("return 6/3;"), "return 2;");
}

#[test]
fn test_minus_peephole() {
    assert_eq!(print("return 6/-3;"), "return -2;");
}

#[test]
fn test_example() {
    assert_eq!(print("return 1+2*3+-5;"), "return 2;");
}
