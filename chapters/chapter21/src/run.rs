//! Running the machine code (chapter 21): the program's top level, called
//! with `arg`, on a real CPU or under an emulator.
//!
//! - **Natively** (x86-64 System V on an x86-64 Linux host): the object
//!   ([`crate::encode::elf`]) is linked by `cc` with a small C driver that
//!   reads `arg` from its command line, calls `simple_main` and prints
//!   what it returned; the C library's `calloc` serves `new`.
//! - **Under unicorn** (feature `emulate`, any of the three CPUs): the
//!   program is linked in memory ([`crate::encode::link`]), `calloc` is a
//!   host function that bump-allocates zeroed memory in the emulator's
//!   heap, and the result is read from the emulated CPU's own return
//!   register. The run also counts the instructions executed.
//!
//! Either way the value is printed as the evaluator prints it: an
//! integer, a float as Java prints a double, `null`; an object, whose
//! fields the machine code does not describe, prints as `object`.

use crate::encode::Program;
use crate::types::{TypeId, Types};
use std::path::PathBuf;
use std::process::Command;

/// What the top level returns, which says how to read its result.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Returns {
    Int,
    F64,
    F32,
    /// A reference (or `null`).
    Ref,
    /// Nothing a register holds.
    Nothing,
}

impl Returns {
    /// The kind of value of type `t`.
    pub fn of(types: &Types, t: TypeId) -> Returns {
        if types.is_flt(t) {
            if types.to_string(t).contains("f32") {
                Returns::F32
            } else {
                Returns::F64
            }
        } else if types.int_bounds(t).is_some() {
            Returns::Int
        } else if types.pointee(t).is_some()
            || types.is_fun_ptr(t)
            || types.to_string(t).contains("null")
        {
            // A struct, an array or a function: only its address is known.
            Returns::Ref
        } else {
            Returns::Nothing
        }
    }

    /// The value of the return registers, printed.
    pub fn show(self, int: u64, float_bits: u64) -> String {
        match self {
            Returns::Int => (int as i64).to_string(),
            Returns::F64 => crate::double::format(f64::from_bits(float_bits)),
            Returns::F32 => crate::double::format(f64::from(f32::from_bits(float_bits as u32))),
            Returns::Ref if int == 0 => "null".into(),
            Returns::Ref => "object".into(),
            Returns::Nothing => String::new(),
        }
    }
}

/// What the top level (`main`) of graph `g` returns. A float is in the
/// register as a double unless the machine node that made it gives an
/// f32 (a rounding, a load of an `f32`): a constant typed `0.5f` is held
/// as a double like any other.
pub fn top_level_returns(g: &crate::graph::Graph) -> Returns {
    use crate::node::NodeKind;
    for f in crate::regalloc::build::functions(g) {
        if crate::node::fun::label(g, f) != "main" {
            continue;
        }
        let NodeKind::Fun { sig, ret, .. } = *g.role(f) else {
            continue;
        };
        let Some((_, ty, _)) = g.types.fun_parts(sig) else {
            continue;
        };
        let returns = Returns::of(&g.types, ty);
        if !matches!(returns, Returns::F32 | Returns::F64) {
            return returns;
        }
        let f32_made = ret
            .and_then(|r| g.input(r, 2))
            .and_then(|v| crate::mach::mach(g, v))
            .is_some_and(|m| m.ty[0] == crate::mach::LType::F32);
        return if f32_made { Returns::F32 } else { Returns::F64 };
    }
    Returns::Nothing
}

/// The C driver of a native run: prints the integer and the float return
/// registers' values as bits, which [`Returns::show`] then reads.
fn c_driver(returns: Returns) -> String {
    let (decl, call) = match returns {
        Returns::F64 => (
            "extern double simple_main(long);",
            "double d = simple_main(arg); unsigned long bits; memcpy(&bits, &d, 8); printf(\"0 %lu\\n\", bits);",
        ),
        Returns::F32 => (
            "extern float simple_main(long);",
            "float f = simple_main(arg); unsigned int bits; memcpy(&bits, &f, 4); printf(\"0 %u\\n\", bits);",
        ),
        _ => (
            "extern unsigned long simple_main(long);",
            "printf(\"%lu 0\\n\", simple_main(arg));",
        ),
    };
    format!(
        "#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n{decl}\n\
         int main(int argc, char **argv) {{\n  long arg = argc > 1 ? strtol(argv[1], 0, 10) : 0;\n  {call}\n  return 0;\n}}\n"
    )
}

/// The C driver for `returns`, compiled once per process (compiling it
/// costs more than linking a program with it).
fn compiled_driver(returns: Returns) -> Result<PathBuf, String> {
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};
    static DRIVERS: OnceLock<Mutex<HashMap<String, PathBuf>>> = OnceLock::new();
    let key = format!("{returns:?}");
    let mut drivers = DRIVERS
        .get_or_init(Default::default)
        .lock()
        .map_err(|_| "the driver cache is poisoned".to_string())?;
    if let Some(path) = drivers.get(&key) {
        return Ok(path.clone());
    }
    let dir = scratch_dir()?;
    let src = dir.join("driver.c");
    let obj = dir.join("driver.o");
    std::fs::write(&src, c_driver(returns)).map_err(|e| e.to_string())?;
    let cc = Command::new("cc")
        .arg("-c")
        .arg(&src)
        .arg("-o")
        .arg(&obj)
        .output()
        .map_err(|e| format!("cannot run cc: {e}"))?;
    if !cc.status.success() {
        return Err(format!(
            "cc did not compile the driver:\n{}",
            String::from_utf8_lossy(&cc.stderr)
        ));
    }
    drivers.insert(key, obj.clone());
    Ok(obj)
}

/// A directory of its own for one run's files.
fn scratch_dir() -> Result<PathBuf, String> {
    use std::sync::atomic::{AtomicU32, Ordering};
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let dir = std::env::temp_dir().join(format!(
        "simple-run-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot make {}: {e}", dir.display()))?;
    Ok(dir)
}

/// Links `program` (x86-64 System V) with a C driver by `cc` and runs it
/// once with each of `args` (one link for all): the printed values.
pub fn native(program: &Program, returns: Returns, args: &[i64]) -> Result<Vec<String>, String> {
    if program.isa != isa::Isa::X86_64 || !cfg!(all(target_arch = "x86_64", target_os = "linux")) {
        return Err("native runs need x86-64 code on an x86-64 Linux host".into());
    }
    let dir = scratch_dir()?;
    let result = link_and_run(program, returns, args, &dir);
    let _ = std::fs::remove_dir_all(&dir);
    result
}

fn link_and_run(
    program: &Program,
    returns: Returns,
    args: &[i64],
    dir: &std::path::Path,
) -> Result<Vec<String>, String> {
    let obj = dir.join("prog.o");
    let driver = compiled_driver(returns)?;
    let bin = dir.join("prog");
    let elf = crate::encode::elf::write_elf(program)?;
    std::fs::write(&obj, elf).map_err(|e| e.to_string())?;
    let cc = Command::new("cc")
        .arg(&driver)
        .arg(&obj)
        .arg("-o")
        .arg(&bin)
        .output()
        .map_err(|e| format!("cannot run cc: {e}"))?;
    if !cc.status.success() || !cc.stderr.is_empty() {
        return Err(format!(
            "cc did not link cleanly:\n{}",
            String::from_utf8_lossy(&cc.stderr)
        ));
    }
    let mut values = Vec::with_capacity(args.len());
    for &arg in args {
        let out = run_with_timeout(Command::new(&bin).arg(arg.to_string()))?;
        if !out.status.success() {
            return Err(format!("the program failed with arg {arg}: {}", out.status));
        }
        let text = String::from_utf8_lossy(&out.stdout);
        let mut words = text.split_whitespace().map(|w| w.parse::<u64>());
        match (words.next(), words.next()) {
            (Some(Ok(int)), Some(Ok(bits))) => values.push(returns.show(int, bits)),
            _ => return Err(format!("the driver printed {text:?}")),
        }
    }
    Ok(values)
}

/// How long a native run may take: the evaluator's budget of loop trips
/// finishes in far less; a program that runs longer has gone wrong.
const NATIVE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(20);

/// Runs `cmd` to its end, or kills it after [`NATIVE_TIMEOUT`].
fn run_with_timeout(cmd: &mut Command) -> Result<std::process::Output, String> {
    use std::process::Stdio;
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run the program: {e}"))?;
    let start = std::time::Instant::now();
    loop {
        match child.try_wait().map_err(|e| e.to_string())? {
            Some(_) => return child.wait_with_output().map_err(|e| e.to_string()),
            None if start.elapsed() > NATIVE_TIMEOUT => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "the program ran for more than {} s and was stopped",
                    NATIVE_TIMEOUT.as_secs()
                ));
            }
            None => std::thread::sleep(std::time::Duration::from_millis(2)),
        }
    }
}

/// What an emulated run gave: the value printed, and the instructions
/// executed.
#[cfg(feature = "emulate")]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Emulated {
    pub value: String,
    pub steps: u64,
}

/// Why an emulated run did not give a value.
#[cfg(feature = "emulate")]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EmuFailure {
    /// The run went past `step_limit` instructions.
    StepLimit(u64),
    /// Anything else: a fault, a link error.
    Error(String),
}

/// Runs `program` under unicorn (System V) with `arg`, for at most
/// `step_limit` instructions.
#[cfg(feature = "emulate")]
pub fn emulate(
    program: &Program,
    returns: Returns,
    arg: i64,
    step_limit: u64,
) -> Result<Emulated, EmuFailure> {
    use isa::emu::{Abi, Arg, EmuError, Machine};
    let err = |e: String| EmuFailure::Error(e);
    let mut m = Machine::new(program.isa, Abi::SystemV).map_err(|e| err(e.to_string()))?;
    let calloc = m.add_calloc().map_err(|e| err(e.to_string()))?;
    let image = crate::encode::link::link(program, Machine::CODE_BASE, &|name| {
        (name == "calloc").then_some(calloc)
    })
    .map_err(err)?;
    m.load_image(image.base, &image.bytes)
        .map_err(|e| err(e.to_string()))?;
    let entry = image
        .symbols
        .get("simple_main")
        .copied()
        .ok_or_else(|| err("the program has no top level".into()))?;
    match m.call(entry, &[Arg::Int(arg)], step_limit) {
        Ok(o) => Ok(Emulated {
            value: returns.show(o.int, o.float_bits),
            steps: o.steps,
        }),
        Err(EmuError::StepLimit { steps, .. }) => Err(EmuFailure::StepLimit(steps)),
        Err(e) => Err(err(e.to_string())),
    }
}
