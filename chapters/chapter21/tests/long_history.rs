//! Memory over a long history (issue 22). The graph evaluator's memory
//! state maps each object to its value, so a read no longer searches every
//! write made since: the programs here took seconds that way, and ten times
//! as many objects took minutes. The tests are not timed; they check the
//! values over such a history, with a field read just before it is
//! rewritten, so that its old state and the new one are both in use.

use chapter21::{CodeGen, Outcome, Value};
use pretty_assertions::assert_eq;

/// Objects made and written one after another.
const COUNT: i64 = 20_000;

/// The loop budget: enough for every loop below.
const LOOPS: usize = 100_000;

fn compiled(src: &str) -> CodeGen {
    let mut code = CodeGen::new(src);
    code.parse().unwrap().iterate().unwrap();
    code
}

/// `a.x`, written before the loop, is read after each write to another
/// object of its struct; `c.x` is read and then rewritten.
#[test]
fn an_old_object_is_read_after_many_writes() {
    let src = "\
struct S { int x; };
S !a = new S;
a.x = 7;
S !c = new S;
c.x = 0;
int i = 0;
int s = 0;
while (i < arg) {
    S !b = new S;
    b.x = i;
    int old = c.x;
    c.x = i;
    s = s + a.x + b.x + old;
    i = i + 1;
}
return s + c.x;
";
    let code = compiled(src);
    let n = COUNT;
    let want = 7 * n + n * (n - 1) / 2 + (n - 1) * (n - 2) / 2 + n - 1;
    let want = Outcome::Value(Value::Int(want));
    assert_eq!(code.eval(n, LOOPS), want);
    assert_eq!(code.eval_scheduled(n, LOOPS), want);
}

/// A list of 20,000 nodes, built front first and walked twice: the first
/// walk doubles each value after reading it, the second sums what the
/// first left.
#[test]
fn a_long_list_is_walked_twice() {
    let src = "\
struct N { N? next; int v; };
N? !h = null;
int i = 0;
while (i < arg) {
    N !n = new N;
    n.next = h;
    n.v = i;
    h = n;
    i = i + 1;
}
int s = 0;
N? !p = h;
while (p) {
    if (p) {
        s = s + p.v;
        p.v = p.v * 2;
        p = p.next;
    }
}
int t = 0;
p = h;
while (p) {
    if (p) {
        t = t + p.v;
        p = p.next;
    }
}
return s + t;
";
    let code = compiled(src);
    let n = COUNT;
    let want = Outcome::Value(Value::Int(3 * n * (n - 1) / 2));
    assert_eq!(code.eval(n, LOOPS), want);
    assert_eq!(code.eval_scheduled(n, LOOPS), want);
}

/// The list of 20,000 nodes returned: both evaluators show it (the first
/// nodes in full, then as far as shown objects go), nesting a level per
/// node, on a test's own small stack (it overflowed once).
#[test]
fn a_long_list_returned_is_shown() {
    let src = "\
struct N { N? next; int v; };
N? !h = null;
int i = 0;
while (i < arg) {
    N !n = new N;
    n.next = h;
    n.v = i;
    h = n;
    i = i + 1;
}
return h;
";
    let code = compiled(src);
    let graph = code.eval(COUNT, LOOPS);
    let Outcome::Value(shown) = &graph else {
        panic!("{graph:?}");
    };
    assert!(shown.to_string().contains("next="), "{shown}");
    assert_eq!(code.eval_scheduled(COUNT, LOOPS), graph);
}
