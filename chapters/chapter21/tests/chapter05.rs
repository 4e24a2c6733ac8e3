//! Port of Simple's chapter 19 `Chapter05Test.java`.

use chapter21::CodeGen;
use pretty_assertions::assert_eq;

/// Java: `parser.parse()` then `stop.toString()`.
fn print(src: &str) -> String {
    let mut code = CodeGen::new(src);
    code.parse().unwrap().print()
}

/// Java: `code.parse().opto()` then `code.print()`.
fn print_opto(src: &str) -> String {
    let mut code = CodeGen::new(src);
    code.parse().unwrap().opto().unwrap().print()
}

/// The error message of a program that must not compile. (`unwrap_err`
/// would need `CodeGen: Debug`.)
fn error(src: &str) -> String {
    match CodeGen::new(src).parse() {
        Ok(code) => panic!("{src:?} compiled to {:?}", code.print()),
        Err(err) => err.message,
    }
}

#[test]
fn test_if_stmt() {
    let src = "\
int a = 1;
if (arg == 1)
    a = arg+2;
else {
    a = arg-3;
}
return a;";
    assert_eq!(print_opto(src), "return Phi(Region,(arg+2),(arg-3));");
}

#[test]
fn test_test() {
    let src = "\
int c = 3;
int b = 2;
if (arg == 1) {
    b = 3;
    c = 4;
}
return c;";
    assert_eq!(print_opto(src), "return Phi(Region,4,3);");
}

#[test]
fn test_return2() {
    let src = "\
if( arg==1 )
    return 3;
else
    return 4;
";
    assert_eq!(print(src), "return Phi(Region,3,4);");
}

#[test]
fn test_if_merge_b() {
    let src = "\
int a=arg+1;
int b=0;
if( arg==1 )
    b=a;
else
    b=a+1;
return a+b;";
    assert_eq!(print_opto(src), "return ((arg<<1)+Phi(Region,2,3));");
}

#[test]
fn test_if_merge2() {
    let src = "\
int a=arg+1;
int b=arg+2;
if( arg==1 )
    b=b+a;
else
    a=b+1;
return a+b;";
    assert_eq!(
        print_opto(src),
        "return ((Phi(Region,(arg<<1),arg)+arg)+Phi(Region,4,5));"
    );
}

#[test]
fn test_merge3() {
    let src = "\
int a=1;
if( arg==1 )
    if( arg==2 )
        a=2;
    else
        a=3;
else if( arg==3 )
    a=4;
else
    a=5;
return a;
";
    assert_eq!(
        print_opto(src),
        "return Phi(Region,Phi(Region,2,3),Phi(Region,4,5));"
    );
}

#[test]
fn test_merge4() {
    let src = "\
int a=0;
int b=0;
if( arg )
    a=1;
if( arg==0 )
    b=2;
return arg+a+b;
";
    assert_eq!(
        print(src),
        "return ((arg+Phi(Region,1,0))+Phi(Region,2,0));"
    );
}

#[test]
fn test_merge5() {
    let src = "\
int a=arg==2;
if( arg==1 )
{
    a=arg==3;
}
return a;";
    assert_eq!(print_opto(src), "return (arg==Phi(Region,3,2));");
}

#[test]
fn test_true() {
    assert_eq!(print("return true;"), "return 1;");
}

#[test]
fn test_half_def() {
    assert_eq!(
        error("if( arg==1 ) int b=2; return b;"),
        "Cannot define a 'b' on one arm of an if"
    );
}

#[test]
fn test_half_def2() {
    assert_eq!(
        error("if( arg==1 ) { int b=2; } else { int b=3; } return b;"),
        "Undefined name 'b'"
    );
}

#[test]
fn test_regress1() {
    assert_eq!(
        error("if(arg==2) int a=1; else int b=2; return a;"),
        "Cannot define a 'a' on one arm of an if"
    );
}

#[test]
fn test_bad_num() {
    assert_eq!(
        error("return 1-;"),
        "Syntax error, expected an identifier or expression: ;"
    );
}

#[test]
fn test_keyword1() {
    assert_eq!(
        error("int true=0; return true;"),
        "Expected an identifier, found 'true'"
    );
}

#[test]
fn test_keyword2() {
    assert_eq!(
        error("int else=arg; if(else) else=2; else else=1; return else;"),
        "Expected an identifier, found 'else'"
    );
}

#[test]
fn test_keyword3() {
    assert_eq!(
        error("int a=1; ififif(arg);a=2;return a;"),
        "Undefined name 'ififif'"
    );
}
