//! Print the encoding table of one ISA: `<assembly text>\t<hex bytes>` per
//! line. `cargo run -p isa --example encoding-table -- x86_64|aarch64|riscv64`
use std::io::Write;
use std::process::ExitCode;

fn main() -> ExitCode {
    let arg = std::env::args().nth(1).unwrap_or_default();
    let Some(isa) = isa::Isa::from_name(&arg) else {
        eprintln!("usage: encoding-table <x86_64|aarch64|riscv64>");
        return ExitCode::from(2);
    };
    let lines = match isa::table::lines(isa) {
        Ok(lines) => lines,
        Err(e) => {
            eprintln!("error: the {arg} table does not encode: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for line in &lines {
        if writeln!(out, "{line}").is_err() {
            return ExitCode::FAILURE; // closed pipe: stop quietly
        }
    }
    if out.flush().is_err() {
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
