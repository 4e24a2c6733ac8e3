//! A program that stores in a loop until its budget runs out writes as
//! many times as the budget allows. The graph evaluators of chapters 10 to
//! 18 once kept every write in a linked list and dropped it recursively,
//! which overflowed here, on a thread with a 1 MiB stack (and `simple
//! eval` aborted on `while (1) p.f = 1;`, even on its 256 MiB stack). A
//! memory state is now a map of bounded depth that holds the newest value
//! of each field; this still runs them all on the small stack.

use simple::{evaluate, Evaluation, Options};

/// The same program in each chapter's syntax: `;` after a struct from
/// chapter 16, `!` on a mutable reference from chapter 17.
fn source(chapter: u32) -> &'static str {
    match chapter {
        ..=15 => "struct S { int f; } S p = new S; while (1) { p.f = arg; }",
        16 => "struct S { int f; }; S p = new S; while (1) { p.f = arg; }",
        _ => "struct S { int f; }; S !p = new S; while (1) { p.f = arg; }",
    }
}

#[test]
fn a_loop_storing_until_its_budget_runs_out_times_out() {
    for chapter in 10..=18u32 {
        for scheduled in [false, true] {
            if scheduled && chapter < simple::FIRST_SCHEDULE_CHAPTER {
                continue;
            }
            let run = move || {
                let options = Options::default();
                evaluate(chapter, source(chapter), &options, 1, 100_000, scheduled)
            };
            let outcome = std::thread::Builder::new()
                .stack_size(1 << 20)
                .spawn(run)
                .expect("a thread")
                .join()
                .expect("no panic");
            assert_eq!(
                outcome,
                Ok(Evaluation::Timeout),
                "chapter {chapter}, scheduled {scheduled}"
            );
        }
    }
}
