// Scratch: compile a program and run it natively and under unicorn (not committed).
use chapter21::CodeGen;
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let src = std::fs::read_to_string(&args[1]).unwrap();
    let arg: i64 = args.get(2).map_or(0, |a| a.parse().unwrap());
    let cpu = args.get(3).map_or("x86_64_v2", |s| s.as_str());
    let mut code = CodeGen::new(&src);
    code.parse()
        .and_then(|c| c.opto())
        .and_then(|c| c.type_check())
        .and_then(|c| c.inst_select(cpu, "SystemV"))
        .and_then(|c| c.legalize())
        .and_then(|c| c.gcm())
        .and_then(|c| c.local_sched())
        .and_then(|c| c.reg_alloc())
        .and_then(|c| c.encode())
        .unwrap_or_else(|e| panic!("{e:?}"));
    dbg_funs(&code);
    let enc = code.encoded.as_ref().unwrap();
    if std::env::var_os("LIST").is_some() {
        for (f, lines) in enc.program.functions.iter().zip(&enc.lines) {
            println!("{}:", f.name);
            for l in lines {
                let bytes: Vec<String> = enc.program.text
                    [l.offset as usize..(l.offset + l.len as u64) as usize]
                    .iter()
                    .map(|b| format!("{b:02x}"))
                    .collect();
                println!("  {:4x}: {:24} {}", l.offset, bytes.join(" "), l.inst);
            }
        }
        println!("relocs: {:?}", enc.program.relocs);
    }
    let ret = chapter21::run::top_level_returns(&code.graph);
    let mut eval = CodeGen::new(&src);
    eval.parse().unwrap();
    eval.opto().unwrap();
    println!("eval: {:?}", eval.eval(arg, 1_000_000));
    if cpu == "x86_64_v2" {
        println!(
            "native: {:?}",
            chapter21::run::native(&enc.program, ret, &[arg])
        );
    }
    println!(
        "emu: {:?}",
        chapter21::run::emulate(&enc.program, ret, arg, 100_000_000)
    );
}
#[allow(dead_code)]
fn dbg_funs(code: &CodeGen) {
    let g = &code.graph;
    for f in chapter21::regalloc::build::functions(g) {
        if let chapter21::NodeKind::Fun { sig, .. } = *g.role(f) {
            eprintln!(
                "fun {} label {} sig {} fidxs {:?}",
                f.nid(),
                chapter21::node::fun::label(g, f),
                g.types.to_string(sig),
                g.types.fidxs(sig).map(|s| s.parts())
            );
        }
    }
}
