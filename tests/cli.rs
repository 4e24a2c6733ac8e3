//! The `simple` command as a user meets it: results on standard output,
//! diagnostics on standard error, and the documented exit codes.

use pretty_assertions::assert_eq;
use std::io::Write;
use std::process::{Command, Output, Stdio};

fn simple(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_simple"))
        .args(args)
        .output()
        .expect("the simple binary runs")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn print_chapter4_folds_constants_around_arg() {
    let out = simple(&["print", "--chapter", "4", "-e", "return 1+arg+2;"]);
    assert_eq!(stdout(&out), "return (arg+3);\n");
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn arg_makes_arg_a_constant() {
    let out = simple(&[
        "print",
        "--chapter",
        "17",
        "--arg",
        "-5",
        "-e",
        "return arg*2;",
    ]);
    assert_eq!(stdout(&out), "return -10;\n");
    // From chapter 18 `arg` is main's parameter: a program assigns it.
    let out = simple(&["print", "--arg", "-5", "-e", "return arg*2;"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("`arg` is main's parameter"),
        "{}",
        stderr(&out)
    );
    let out = simple(&["print", "-e", "arg = -5; return arg*2;"]);
    assert_eq!(stdout(&out), "return -10;\n");
}

#[test]
fn latest_chapter_is_the_default() {
    let src = "if( arg==1 ) return 3; else return 4;";
    let out = simple(&["print", "-e", src]);
    // Chapter 18: one Return per function, merging the two.
    assert_eq!(stdout(&out), "return Phi(Region,3,4);\n");
}

#[test]
fn reads_a_file_and_standard_input() {
    let dir = std::env::temp_dir().join(format!("simple-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("prog.smp");
    std::fs::write(&file, "int a = 2;\nreturn a*3;\n").unwrap();
    let out = simple(&["print", file.to_str().unwrap()]);
    assert_eq!(stdout(&out), "return 6;\n");

    let mut child = Command::new(env!("CARGO_BIN_EXE_simple"))
        .args(["print", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(b"return 7;").unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(stdout(&out), "return 7;\n");
}

#[test]
fn program_error_names_the_place_with_a_caret() {
    let out = simple(&["print", "-e", "int a = 1;\nif (arg) a = b;\nreturn a;"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stdout(&out), "");
    assert_eq!(
        stderr(&out),
        "error: Undefined name 'b'\n --> <-e>:2:14\n  |\n2 | if (arg) a = b;\n  |              ^\n"
    );
}

#[test]
fn error_at_end_of_input_points_past_the_last_character() {
    let out = simple(&["print", "--chapter", "1", "-e", "return 100"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).starts_with("error: Syntax error, expected ;: \n --> <-e>:1:11\n"));
}

#[test]
fn show_graph_goes_to_standard_error_numbered() {
    let out = simple(&[
        "print",
        "-e",
        "int a = 1; #showGraph; return a; #showGraph;",
    ]);
    assert_eq!(stdout(&out), "return 1;\n");
    let err = stderr(&out);
    assert!(
        err.contains(&format!(
            "// #showGraph 1\ndigraph chapter{:02} {{",
            simple::LATEST
        )),
        "{err}"
    );
    assert!(
        err.contains(&format!(
            "// #showGraph 2\ndigraph chapter{:02} {{",
            simple::LATEST
        )),
        "{err}"
    );
}

#[test]
fn dot_writes_graphviz_on_standard_output() {
    let out = simple(&["dot", "--chapter", "5", "-e", "return arg;"]);
    let text = stdout(&out);
    assert!(text.starts_with("digraph chapter05 {"), "{text}");
    assert!(text.trim_end().ends_with('}'));
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn bad_command_lines_exit_with_2() {
    assert_eq!(
        simple(&["print", "--chapter", "99", "-e", "return 1;"])
            .status
            .code(),
        Some(2)
    );
    assert_eq!(
        simple(&["print", "--chapter", "2", "--arg", "1", "-e", "return 1;"])
            .status
            .code(),
        Some(2)
    );
    assert_eq!(
        simple(&[
            "print",
            "--chapter",
            "1",
            "--no-peephole",
            "-e",
            "return 1;"
        ])
        .status
        .code(),
        Some(2)
    );
    assert_eq!(simple(&["print"]).status.code(), Some(2));
    assert_eq!(simple(&["frobnicate"]).status.code(), Some(2));
    let missing = simple(&["print", "/nonexistent/prog.smp"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(stderr(&missing).starts_with("error: cannot read /nonexistent/prog.smp"));
}

#[test]
fn every_command_has_help() {
    for args in [
        &["--help"][..],
        &["print", "--help"],
        &["dot", "--help"],
        &["ir", "--help"],
        &["eval", "--help"],
        &["fuzz", "--help"],
        &["asm", "--help"],
        &["legal", "--help"],
    ] {
        let out = simple(args);
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        assert!(stdout(&out).contains("Usage:"), "{args:?}");
    }
}

#[test]
fn output_is_deterministic() {
    let src = "int a=1; if(arg) a=2; else a=3; return a+arg;";
    let first = simple(&["dot", "-e", src]);
    for _ in 0..3 {
        assert_eq!(stdout(&simple(&["dot", "-e", src])), stdout(&first));
    }
}

#[test]
fn ten_thousand_nested_parentheses_give_an_answer() {
    let src = format!("return {}1{};", "(".repeat(10_000), ")".repeat(10_000));
    let out = simple(&["print", "-e", &src]);
    assert_eq!(stdout(&out), "return 1;\n");
}

#[test]
fn huge_literal_is_an_error_not_a_crash() {
    let out = simple(&["print", "-e", "return 99999999999999999999;"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).starts_with("error: Syntax error: integer literal out of range"));
}

#[test]
fn eval_runs_the_program_with_arg() {
    let src =
        "while(arg < 10) { arg = arg + 1; if (arg == 5) break; if (arg == 6) break; } return arg;";
    let out = simple(&["eval", "-e", src, "--arg", "1"]);
    assert_eq!(stdout(&out), "5\n");
    assert_eq!(out.status.code(), Some(0));
    let out = simple(&["eval", "-e", src, "--arg", "6"]);
    assert_eq!(stdout(&out), "10\n");
}

#[test]
fn eval_of_an_endless_loop_stops_with_status_3() {
    let out = simple(&[
        "eval",
        "-e",
        "while(1) arg = arg + 1; return arg;",
        "--loops",
        "50",
    ]);
    assert_eq!(out.status.code(), Some(3));
    assert_eq!(stdout(&out), "");
    assert!(stderr(&out).contains("stopped after 50 loop iterations"));
    assert!(
        stderr(&out).contains("--loops"),
        "the message names the flag"
    );
}

/// About 125,000 loop trips: the default budget lets a real program finish,
/// on the graph and on the schedule.
#[test]
fn eval_default_budget_lets_real_programs_finish() {
    let perfect_numbers_below_500 = "
int n = 2; int count = 0;
while (n < 500) {
  int s = 0; int d = 1;
  while (d < n) { if (n - (n/d)*d == 0) s = s + d; d = d + 1; }
  if (s == n) count = count + 1;
  n = n + 1;
}
return count;";
    for scheduled in [false, true] {
        let mut args = vec!["eval", "-e", perfect_numbers_below_500];
        if scheduled {
            args.push("--scheduled");
        }
        let out = simple(&args);
        assert_eq!(stdout(&out), "3\n", "{args:?}");
        assert_eq!(out.status.code(), Some(0));
    }
}

#[test]
fn eval_before_chapter_8_is_a_usage_error() {
    let out = simple(&["eval", "--chapter", "7", "-e", "return 1;"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn printing_shared_values_as_a_tree_is_capped_in_early_chapters() {
    // Each `if` shares `a` between both arms: printed as a tree (chapters 3
    // to 6) the text doubles with every statement. It must stop, not hang.
    let mut src = String::from("int a=arg;\n");
    for i in 0..60 {
        src.push_str(&format!("if(arg=={i}) a=a+{i}; else a=a-1;\n"));
    }
    src.push_str("return a;\n");
    let out = simple(&["print", "--chapter", "6", "-e", &src]);
    assert_eq!(out.status.code(), Some(0));
    let text = stdout(&out);
    assert!(text.len() < 2 << 20, "{} bytes", text.len());
    assert!(text.contains("..."));
}

#[test]
fn ir_lists_the_schedule_block_by_block() {
    let src = "int s=0; int i=0; while(i<arg) { s=s+i; i=i+1; } return s;";
    let out = simple(&["ir", "-e", src]);
    assert_eq!(out.status.code(), Some(0));
    let listing = stdout(&out);
    assert!(listing.starts_with("START:"), "{listing}");
    // The loop is a block of its own, headed by its Loop node.
    assert!(listing.lines().any(|l| l.starts_with("LOOP")), "{listing}");
    assert!(listing.contains("Return"), "{listing}");
}

#[test]
fn ir_needs_chapter_11() {
    let out = simple(&["ir", "--chapter", "10", "-e", "return 1;"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("chapter 11"), "{}", stderr(&out));
}

#[test]
fn eval_scheduled_runs_the_schedule_with_a_heap() {
    let src = "struct P { int x; }; P !p = new P; p.x = arg; return p;";
    for extra in [&[][..], &["--scheduled"][..]] {
        let mut args = vec!["eval", "--arg", "7", "-e", src];
        args.extend_from_slice(extra);
        let out = simple(&args);
        // Chapter 18 prints objects as Simple's chapter 18 evaluator.
        assert_eq!(stdout(&out), "P{x=7}\n", "{extra:?}");
    }
    let out = simple(&["eval", "--scheduled", "--chapter", "10", "-e", "return 1;"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_possible_null_dereference_is_a_program_error() {
    let src = "struct S { int a; }; S? !s = null; if (arg) s = new S; return s.a;";
    let out = simple(&["print", "-e", src]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("Might be null accessing 'a'"),
        "{}",
        stderr(&out)
    );
    assert!(stderr(&out).contains("1:"), "{}", stderr(&out));
}

#[test]
fn asm_lists_the_machine_program_for_each_cpu() {
    let src = "return arg+1;";
    // Chapter 19: virtual registers.
    let x86 = simple(&["asm", "-c", "19", "-e", src]);
    assert_eq!(x86.status.code(), Some(0), "{}", stderr(&x86));
    assert!(stdout(&x86).starts_with("main:\n"), "{}", stdout(&x86));
    assert!(stdout(&x86).contains("add v"), "{}", stdout(&x86));
    let riscv = simple(&["asm", "-c", "19", "--cpu", "riscv", "-e", src]);
    assert!(stdout(&riscv).contains("addi v"), "{}", stdout(&riscv));
    let arm = simple(&["asm", "-c", "19", "--cpu", "arm", "-e", src]);
    assert!(stdout(&arm).contains("add v"), "{}", stdout(&arm));
    assert!(stdout(&arm).contains("#1"), "{}", stdout(&arm));
    // Chapter 20: registers allocated by each ABI.
    let x86 = simple(&["asm", "-c", "20", "-e", src]);
    assert_eq!(x86.status.code(), Some(0), "{}", stderr(&x86));
    assert!(
        stdout(&x86).contains("mov rax, rdi\n    add rax, 1\n"),
        "{}",
        stdout(&x86)
    );
    let riscv = simple(&["asm", "-c", "20", "--cpu", "riscv", "-e", src]);
    assert!(
        stdout(&riscv).contains("addi a0, a0, 1"),
        "{}",
        stdout(&riscv)
    );
    let arm = simple(&["asm", "-c", "20", "--cpu", "arm", "-e", src]);
    assert!(stdout(&arm).contains("add x0, x0, #1"), "{}", stdout(&arm));
    let win = simple(&["asm", "-c", "20", "--abi", "Win64", "-e", src]);
    assert_eq!(win.status.code(), Some(0));
    assert!(stdout(&win).contains("mov rax, rcx"), "{}", stdout(&win));
    // Chapter 21, the default: the encoded bytes, as llvm-objdump lists
    // them.
    let x86 = simple(&["asm", "-e", src]);
    assert_eq!(x86.status.code(), Some(0), "{}", stderr(&x86));
    assert!(
        stdout(&x86).contains("48 83 c0 01                   \taddq\t$1, %rax"),
        "{}",
        stdout(&x86)
    );
    let riscv = simple(&["asm", "--cpu", "riscv", "-e", src]);
    assert!(
        stdout(&riscv).contains("addi\ta0, a0, 1"),
        "{}",
        stdout(&riscv)
    );
    let arm = simple(&["asm", "--cpu", "arm", "-e", src]);
    assert!(stdout(&arm).contains("add\tx0, x0, #1"), "{}", stdout(&arm));
    let win = simple(&["asm", "--abi", "Win64", "-e", src]);
    assert!(
        stdout(&win).contains("movq\t%rcx, %rax"),
        "{}",
        stdout(&win)
    );
}

/// Chapter 21: `obj` writes an ELF object, `run` runs it natively, and
/// `--stats` counts the allocator's splits.
#[test]
fn obj_and_run() {
    let src = "int s = 0; for (int i = 0; i < arg; i++) s += i; return s;";
    let run = simple(&["run", "--arg", "10", "-e", src]);
    assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
    assert_eq!(stdout(&run), "45\n");
    let obj = simple(&["obj", "--stats", "-o", "-", "-e", src]);
    assert_eq!(obj.status.code(), Some(0), "{}", stderr(&obj));
    assert!(obj.stdout.starts_with(b"\x7fELF"));
    assert!(stderr(&obj).starts_with("spills "), "{}", stderr(&obj));
    let old = simple(&["obj", "-c", "20", "-o", "-", "-e", src]);
    assert_eq!(old.status.code(), Some(2));
    assert!(
        stderr(&old).contains("obj needs chapter 21"),
        "{}",
        stderr(&old)
    );
}

#[test]
fn asm_refuses_what_it_cannot_do() {
    let src = "return arg;";
    let bad_cpu = simple(&["asm", "--cpu", "z80", "-e", src]);
    assert_eq!(bad_cpu.status.code(), Some(2));
    assert!(
        stderr(&bad_cpu).contains("unknown CPU 'z80'"),
        "{}",
        stderr(&bad_cpu)
    );
    let bad_abi = simple(&["asm", "--cpu", "riscv", "--abi", "Win64", "-e", src]);
    assert!(
        stderr(&bad_abi).contains("riscv has no Win64"),
        "{}",
        stderr(&bad_abi)
    );
    assert_eq!(bad_abi.status.code(), Some(2));
    let old = simple(&["asm", "--chapter", "18", "-e", src]);
    assert_eq!(old.status.code(), Some(2));
    assert!(
        stderr(&old).contains("asm needs chapter 19"),
        "{}",
        stderr(&old)
    );
    let syntax = simple(&["asm", "-e", "return 1+;"]);
    assert_eq!(syntax.status.code(), Some(1));
}

#[test]
fn legal_prints_a_cpus_rules() {
    let out = simple(&["legal", "--cpu", "riscv"]);
    assert_eq!(out.status.code(), Some(0));
    let table = stdout(&out);
    assert!(
        table.starts_with("legalization rules for riscv\n"),
        "{table}"
    );
    assert!(table.contains("libcall(calloc)"), "{table}");
    let bad = simple(&["legal", "--cpu", "z80"]);
    assert_eq!(bad.status.code(), Some(2));
    assert_eq!(simple(&["legal", "--chapter", "18"]).status.code(), Some(2));
}

/// A reader that goes away (`simple fuzz | head -0`) ends the output
/// quietly: no panic about a broken pipe.
#[test]
fn a_closed_pipe_is_no_panic() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_simple"))
        .args(["fuzz", "--count", "20", "--chapter", "11"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("simple runs");
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("simple ends");
    let err = stderr(&out);
    assert!(!err.contains("panicked"), "{err}");
    assert!(out.status.success(), "{err}");
}

#[test]
fn machine_ir_passes_print_after_a_hook_and_report_on_standard_error() {
    let src = "int s = 0; for (int i = 0; i < arg; i++) s = s + i; return s;";
    let plain = simple(&["asm", "--cpu", "arm", "-e", src]);
    for cmd in ["asm", "obj", "run"] {
        let mut args = vec![cmd, "--cpu", "x86_64_v2", "-e", src];
        if cmd == "obj" {
            args.extend(["-o", "-"]);
        }
        args.extend([
            "--print-after",
            "post_regalloc",
            "--pass",
            "block-inst-count",
        ]);
        let out = simple(&args);
        assert_eq!(out.status.code(), Some(0), "{cmd}: {}", stderr(&out));
        let err = stderr(&out);
        assert!(
            err.starts_with("# Machine IR after post_regalloc\nname: simple_main (x86_64_v2)\n"),
            "{cmd}: {err}"
        );
        assert!(
            err.contains("block-inst-count: simple_main bb.0 (L"),
            "{cmd}: {err}"
        );
        assert!(
            !stdout(&out).contains("Machine IR"),
            "{cmd}: only the result on stdout"
        );
    }
    // The examples change nothing of the result.
    let with = simple(&[
        "asm",
        "--cpu",
        "arm",
        "-e",
        src,
        "--pass",
        "self-move-elim",
        "--pass",
        "block-inst-count",
    ]);
    assert_eq!(stdout(&with), stdout(&plain));
    let run = simple(&["run", "-e", src, "--arg", "10", "--pass", "self-move-elim"]);
    assert_eq!(stdout(&run), "45\n");
    // Bad names and old chapters are a bad command line.
    let hook = simple(&["asm", "-e", src, "--print-after", "final_verify"]);
    assert_eq!(hook.status.code(), Some(2));
    assert!(
        stderr(&hook).contains("unknown hook 'final_verify'"),
        "{}",
        stderr(&hook)
    );
    let pass = simple(&["obj", "-e", src, "-o", "-", "--pass", "nope"]);
    assert_eq!(pass.status.code(), Some(2));
    assert!(
        stderr(&pass).contains("the passes are self-move-elim, block-inst-count"),
        "{}",
        stderr(&pass)
    );
    let old = simple(&[
        "asm",
        "--chapter",
        "20",
        "-e",
        src,
        "--print-after",
        "final",
    ]);
    assert_eq!(old.status.code(), Some(2));
}
