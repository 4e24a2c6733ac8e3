//! Port of Simple's chapter 19 `SchedulerTest.java`: programs with memory,
//! run by the evaluator.

use chapter21::eval::Value;
use chapter21::{CodeGen, Outcome};
use pretty_assertions::assert_eq;

/// Parses `src` with peepholes and optimizes (Java: `code.parse().opto()`),
/// then runs the phases after (type check, global and local scheduling)
/// that the run of the schedule needs.
fn parse_iterated(src: &str) -> CodeGen {
    let mut code = CodeGen::new(src);
    code.parse().unwrap().iterate().unwrap();
    code
}

/// Java's `Evaluator.evaluate` (the chapter's old evaluator, still used by
/// this test class): both of our evaluators (the graph walk and the run of
/// the schedule) must give the same outcome.
fn eval(code: &CodeGen, arg: i64, loops: usize) -> Outcome {
    let outcome = code.eval(arg, loops);
    assert_eq!(
        code.eval_scheduled(arg, loops),
        outcome,
        "scheduled, arg {arg}"
    );
    outcome
}

/// The program returned an object of struct `name` whose fields hold
/// `fields`, in declaration order (Java: `assertObj`).
fn assert_obj(outcome: Outcome, name: &str, fields: &[Value]) {
    match outcome {
        Outcome::Value(Value::Obj {
            name: struct_name,
            fields: got,
        }) => {
            assert_eq!(struct_name, name);
            let values: Vec<&Value> = got.iter().map(|(_, value)| value).collect();
            assert_eq!(values, fields.iter().collect::<Vec<_>>());
        }
        other => panic!("expected an object of struct {name}, got {other:?}"),
    }
}

// testJig is @Ignore'd in Java (a scratch pad).

#[test]
fn test_store_in_if() {
    let code = parse_iterated(
        "\
struct S {
    int f;
};
S !v0=new S;
if(arg) v0.f=1;
return v0;
",
    );
    assert_obj(eval(&code, 0, 10), "S", &[Value::Int(0)]);
    assert_obj(eval(&code, 1, 10), "S", &[Value::Int(1)]);
}

#[test]
fn test_store_in_if2() {
    let code = parse_iterated(
        "\
struct S {
    int f;
};
S !v=new S;
v.f = 2;
int i=new S.f;
i=v.f;
if (arg) v.f=1;
return i;
",
    );
    assert_eq!(eval(&code, 0, 10), Outcome::Value(Value::Int(2)));
    assert_eq!(eval(&code, 1, 10), Outcome::Value(Value::Int(2)));
}
