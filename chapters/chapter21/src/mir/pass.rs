//! Passes, their registration, the running of a hook, and the sealed
//! final verification.
//!
//! A pass is a [`MachinePass`]: it describes itself ([`PassDesc`]: an id,
//! the hook it runs at, its level, the analyses it needs and those it
//! keeps, and that it is deterministic) and runs on a [`PassContext`].
//! [`Pipeline::register`] refuses a pass that is not deterministic (the
//! compiler's output must not depend on the run) or needs an analysis its
//! hook does not have. At each hook the driver calls [`run_hook`]: it
//! builds the view, runs the hook's passes in the order they were
//! registered (a module pass once, a function pass once per function, a
//! block pass once per block of each function), writes back what may be
//! written back, and prints the view if `--print-after` asked for it.
//!
//! A pass that fails (returns an error, or claims to preserve all after
//! one of its mutations committed) is refused: everything it committed at
//! this hook is undone, the refusal is logged, and compilation goes on
//! without it. A refused commit is logged too, with the verifier's words.
//!
//! [`final_verify`] is not a pass. The driver calls it after the `final`
//! hook, on the view of what was encoded, whatever passes are registered;
//! no API reaches it.

use super::analysis::{Analysis, AnalysisResult};
use super::function::*;
use super::mutation::Mutation;
use super::verify::{check_property, check_structure, verify};
use super::{build, writeback, Hook, MirError};
use crate::codegen::CodeGen;
use crate::error::Error;
use rustc_hash::FxHashMap;

/// What a pass runs on.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Level {
    /// Once, on the whole program.
    Module,
    /// Once per function.
    Function,
    /// Once per block of each function.
    Block,
}

/// What a pass leaves valid.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Preserved {
    None,
    /// The blocks and edges (so the dominator tree and loops).
    Cfg,
    /// Everything: only for a pass that changed nothing.
    All,
    Analyses(Vec<Analysis>),
}

/// A pass's description.
#[derive(Clone, Debug)]
pub struct PassDesc {
    pub id: &'static str,
    pub hook: Hook,
    pub level: Level,
    pub requires: Vec<Analysis>,
    pub preserves: Preserved,
    pub deterministic: bool,
}

/// A machine-IR pass.
pub trait MachinePass {
    fn desc(&self) -> PassDesc;
    /// Runs on `cx`; says what it preserved, or why it failed.
    fn run(&mut self, cx: &mut PassContext<'_>) -> Result<Preserved, String>;
}

/// What a pass sees and may do while it runs.
pub struct PassContext<'a> {
    hook: Hook,
    pass: &'static str,
    module: &'a mut MachineModule,
    /// The module as the hook built it (what write-back compares with).
    base: &'a MachineModule,
    function: Option<usize>,
    block: Option<BlockId>,
    cache: &'a mut Vec<FxHashMap<Analysis, AnalysisResult>>,
    log: &'a mut Vec<String>,
    committed: bool,
}

impl PassContext<'_> {
    pub fn hook(&self) -> Hook {
        self.hook
    }

    pub fn module(&self) -> &MachineModule {
        self.module
    }

    /// The function a function or block pass runs on.
    pub fn function_index(&self) -> Option<usize> {
        self.function
    }

    /// The function a function or block pass runs on (the first one for
    /// a module pass).
    pub fn function(&self) -> &MachineFunction {
        &self.module.functions[self.function.unwrap_or(0)]
    }

    /// The block a block pass runs on.
    pub fn block(&self) -> Option<BlockId> {
        self.block
    }

    /// Analysis `a` of function `f`, computed once until a commit drops
    /// it; [`MirError::Unavailable`] where the hook has none.
    pub fn analysis(&mut self, f: usize, a: Analysis) -> Result<&AnalysisResult, MirError> {
        if !self.cache[f].contains_key(&a) {
            let r = a.compute(&self.module.functions[f], self.hook)?;
            self.cache[f].insert(a, r);
        }
        Ok(&self.cache[f][&a])
    }

    /// A mutation of function `f`.
    pub fn begin(&self, f: usize) -> Mutation {
        Mutation::new(f, &self.module.functions[f])
    }

    /// Commits `m`: the structural pre-check, the machine verifier, the
    /// structural check of every property it claims, and (where edits
    /// reach the code) whether the code can carry it. If any refuses, the
    /// mutation is dropped and the function is as it was.
    pub fn commit(&mut self, m: Mutation) -> Result<(), MirError> {
        let result = self.check(&m);
        if let Err(e) = &result {
            let name = &self.module.functions[m.func].name;
            self.log.push(format!(
                "pass {} at {}: a mutation of {name} was rolled back: {e}",
                self.pass, self.hook
            ));
            return result;
        }
        let cache = &mut self.cache[m.func];
        if m.touched_cfg {
            cache.clear();
        } else if m.touched_code {
            cache.retain(|a, _| a.depends_on_cfg_only());
        }
        self.module.functions[m.func] = m.staged;
        self.committed = true;
        Ok(())
    }

    fn check(&self, m: &Mutation) -> Result<(), MirError> {
        check_structure(&m.staged).map_err(MirError::Refused)?;
        verify(&m.staged).map_err(MirError::Refused)?;
        let before = &self.module.functions[m.func];
        for p in Property::ALL {
            if m.staged.props.has(p) && !before.props.has(p) {
                check_property(&m.staged, p)
                    .map_err(|why| MirError::PropertyRefused { property: p, why })?;
            }
        }
        if self.hook.writes_back() {
            writeback::representable(&self.base.functions[m.func], &m.staged)
                .map_err(MirError::NotWritable)?;
        }
        Ok(())
    }

    /// A line for the log (standard error on the command line).
    pub fn report(&mut self, line: String) {
        self.log.push(line);
    }
}

/// The registered passes, what to print, and what happened.
#[derive(Default)]
pub struct Pipeline {
    passes: Vec<Box<dyn MachinePass>>,
    print_after: Vec<Hook>,
    /// The hooks reached, in order, then `final_verify`.
    pub trace: Vec<&'static str>,
    /// What passes reported, refusals, and `--print-after` listings, in
    /// the order they happened.
    pub log: Vec<String>,
}

impl Pipeline {
    /// Registers `pass` to run at its hook, after those registered before.
    pub fn register(&mut self, pass: Box<dyn MachinePass>) -> Result<(), MirError> {
        let d = pass.desc();
        if !d.deterministic {
            return Err(MirError::Pass(format!(
                "pass {} is not deterministic: the compiler's output must not depend on the run",
                d.id
            )));
        }
        if let Some(&a) = d.requires.iter().find(|a| !a.available_at(d.hook)) {
            return Err(MirError::Unavailable {
                analysis: a,
                hook: d.hook,
            });
        }
        if self.passes.iter().any(|p| p.desc().id == d.id) {
            return Err(MirError::Pass(format!("pass {} is registered twice", d.id)));
        }
        self.passes.push(pass);
        Ok(())
    }

    /// Prints the view after `hook` (into the log).
    pub fn print_after(&mut self, hook: Hook) {
        if !self.print_after.contains(&hook) {
            self.print_after.push(hook);
        }
    }

    /// The log as text, one entry after another.
    pub fn log_text(&self) -> String {
        let mut s = String::new();
        for line in &self.log {
            s.push_str(line);
            if !line.ends_with('\n') {
                s.push('\n');
            }
        }
        s
    }

    fn run(&mut self, code: &mut CodeGen, hook: Hook) -> Result<(), Error> {
        let at: Vec<usize> = (0..self.passes.len())
            .filter(|&k| self.passes[k].desc().hook == hook)
            .collect();
        let print = self.print_after.contains(&hook);
        if at.is_empty() && !print {
            return Ok(());
        }
        let Some(base) = build::module(code, hook) else {
            return Ok(());
        };
        let mut module = base.clone();
        let mut cache = vec![FxHashMap::default(); module.functions.len()];
        for k in at {
            let desc = self.passes[k].desc();
            let before = module.clone();
            let mut failure = None;
            let mut units: Vec<(Option<usize>, Option<BlockId>)> = Vec::new();
            match desc.level {
                Level::Module => units.push((None, None)),
                Level::Function => {
                    units.extend((0..module.functions.len()).map(|f| (Some(f), None)))
                }
                Level::Block => {
                    for (f, mf) in module.functions.iter().enumerate() {
                        units.extend(mf.order.iter().map(|&b| (Some(f), Some(b))));
                    }
                }
            }
            for (function, block) in units {
                if let (Some(f), Some(b)) = (function, block) {
                    // An earlier run of the pass may have erased it.
                    if !module.functions[f].has_block(b) {
                        continue;
                    }
                }
                let mut cx = PassContext {
                    hook,
                    pass: desc.id,
                    module: &mut module,
                    base: &base,
                    function,
                    block,
                    cache: &mut cache,
                    log: &mut self.log,
                    committed: false,
                };
                let outcome = self.passes[k].run(&mut cx);
                let committed = cx.committed;
                match outcome {
                    Ok(Preserved::All) if committed => {
                        failure = Some(
                            "it claims to preserve all analyses after a committed change".into(),
                        )
                    }
                    Ok(_) => {}
                    Err(why) => failure = Some(why),
                }
                if failure.is_some() {
                    break;
                }
            }
            if let Some(why) = failure {
                self.log.push(format!(
                    "pass {} at {hook} refused: {why}; its changes are rolled back",
                    desc.id
                ));
                module = before;
                cache.iter_mut().for_each(FxHashMap::clear);
            }
        }
        if hook.writes_back() && module != base {
            writeback::apply(code, &base, &module);
        }
        if print {
            self.log.push(module.to_string());
        }
        Ok(())
    }
}

/// Runs hook `hook` of `code`'s pipeline (nothing before instruction
/// selection: there is no machine function yet).
pub fn run_hook(code: &mut CodeGen, hook: Hook) -> Result<(), Error> {
    if code.target.is_none() {
        return Ok(());
    }
    let mut pipe = std::mem::take(&mut code.mir);
    pipe.trace.push(hook.name());
    let result = pipe.run(code, hook);
    code.mir = pipe;
    result
}

/// The sealed final verifier: builds the view of what was encoded and
/// verifies every function with [`verify`]. The driver calls it after the
/// `final` hook, always.
pub fn final_verify(code: &mut CodeGen) -> Result<(), Error> {
    code.mir.trace.push("final_verify");
    let Some(module) = build::module(code, Hook::Final) else {
        return Ok(());
    };
    for mf in &module.functions {
        verify(mf).map_err(|e| Error::new(format!("final_verify refused the program: {e}"), 0))?;
    }
    Ok(())
}
