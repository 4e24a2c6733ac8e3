//! Port of Simple's chapter 19 `MergeSortTest.java`: a top-down merge
//! sort written as four functions that call each other, one of them
//! recursively, over two arrays passed by reference.
//!
//! Only two functions are left after optimizing: `main` and the recursive
//! `split_merge`; the other three are each called from one place and are
//! inlined there.

use chapter21::{CodeGen, Outcome};
use pretty_assertions::assert_eq;

const MERGE_SORT: &str = "\
// based on the top-down version from https://en.wikipedia.org/wiki/Merge_sort

val merge_sort = { int[] a, int[] b, int n ->
    copy_array(a, 0, n, b);
    split_merge(a, 0, n, b);
};

val split_merge = { int[] b, int begin, int end, int[] a ->
    if (end - begin <= 1)
        return 0;
    int middle = (end + begin) / 2;
    split_merge(a, begin, middle, b);
    split_merge(a, middle, end, b);
    merge(b, begin, middle, end, a);
    return 0;
};

val merge = { int[] b, int begin, int middle, int end, int[] a ->
    int i = begin, j = middle;

    for (int k = begin; k < end; k++) {
        // && and ||
        bool cond = false;
        if (i < middle) {
            if (j >= end)          cond = true;
            else if (a[i] <= a[j]) cond = true;
        }
        if (cond) b[k] = a[i++];
        else      b[k] = a[j++];
    }
};

val copy_array = { int[] a, int begin, int end, int[] b ->
    for (int k = begin; k < end; k++)
        b[k] = a[k];
};

int[] !a = new int[arg];
int[] !b = new int[a#];

for (int i = 0; i < a#; i++)
    a[i] = a# - i;

merge_sort(a, b, a#);

return a;
";

#[test]
fn test_merge_sort() {
    let mut code = CodeGen::new(MERGE_SORT);
    code.parse().and_then(|c| c.opto()).unwrap();
    assert_eq!(code.print(), "Stop[ return [int]; return 0; ]");
    // Java's `Eval2.eval` type checks and schedules before it runs.
    code.type_check()
        .and_then(|c| c.gcm())
        .and_then(|c| c.local_sched())
        .unwrap();
    for (how, outcome) in [
        ("eval", code.eval(11, 1000)),
        ("eval_scheduled", code.eval_scheduled(11, 1000)),
    ] {
        let Outcome::Value(v) = outcome else {
            panic!("{how}: {outcome:?}");
        };
        assert_eq!(v.to_string(), "int[ 1,2,3,4,5,6,7,8,9,10,11]", "{how}");
    }
}
