//! The driver: one object that carries a program through the phases.
//!
//! Every chapter has the same driver with the same methods, grown as the
//! chapters grow, so that the `simple` command can run any chapter.
//! Chapter 18 has Simple's chapter 18 phases, one method each: `parse`
//! (parsing and peephole optimization are one pass), `opto` (peepholes
//! again, to a fixed point, now that the whole program is known: calls are
//! linked to their functions and single-caller functions inlined),
//! `type_check` (what only the optimized graph shows: a pointer that may
//! be null, a call with the wrong arguments, a function whose returns have
//! no common type), `gcm` (global code motion) and `local_sched`; `iterate`
//! runs the four after `parse`. Then three views of the result, `print`,
//! `dot` and the scheduled listing `ir`, and two ways to run it: `eval`
//! walks the graph, `eval_scheduled` runs the schedule block by block.

use crate::dot;
use crate::error::Error;
use crate::graph::{Graph, NodeId};
use crate::mach::legalize::Stats;
use crate::mach::Target;
use crate::mir::Hook;
use crate::node;
use crate::parser::Parser;
use crate::types::TypeId;
use rustc_hash::FxHashMap;

/// A compilation of one Simple program.
pub struct CodeGen {
    pub src: String,
    /// Build the graph exactly as parsed, without peepholes.
    pub disable_peephole: bool,
    /// The graph, once parsed.
    pub graph: Graph,
    /// The Stop node, once parsed.
    pub stop: Option<NodeId>,
    /// The Graphviz text of every `#showGraph` statement, in order.
    pub show_graphs: Vec<String>,
    /// For each struct type, the memory alias class of its first field.
    pub first_alias: FxHashMap<TypeId, u32>,
    /// Facts about the blocks, once `iterate` has scheduled the program.
    pub schedule: Option<crate::gcm::Schedule>,
    /// Chapter 18: each block's nodes in order, once `local_sched` ran.
    pub local: Option<FxHashMap<NodeId, Vec<NodeId>>>,
    /// Chapter 19: once instructions are selected, `graph` and `stop` are
    /// the machine program's, and this keeps the ideal graph and its Stop,
    /// which the evaluators still run.
    pub ideal: Option<(Graph, NodeId)>,
    /// Chapter 19: the CPU and ABI instructions were selected for.
    pub target: Option<Target>,
    /// Chapter 19: what the legalizer did, once it ran.
    pub legalized: Option<Stats>,
    /// Chapter 20: where every value lives, once `reg_alloc` ran.
    pub alloc: Option<crate::regalloc::Allocation>,
    /// Chapter 20: run the allocation checker ([`crate::regalloc::checker`])
    /// after `reg_alloc` in a release build too (a debug build always
    /// does).
    pub check_alloc: bool,
    /// Chapter 21: remove copies by coalescing and forwarding
    /// ([`crate::regalloc::coalesce`]); on unless switched off, to
    /// measure what it does.
    pub coalesce: bool,
    /// Chapter 21: the machine code, once `encode` ran.
    pub encoded: Option<crate::encode::Encoded>,
    /// Machine-IR passes at the pipeline's hooks, and what they logged
    /// ([`crate::mir`]).
    pub mir: crate::mir::Pipeline,
}

impl CodeGen {
    pub fn new(src: &str) -> Self {
        CodeGen {
            src: src.to_owned(),
            disable_peephole: false,
            graph: Graph::new(),
            stop: None,
            show_graphs: Vec::new(),
            first_alias: FxHashMap::default(),
            schedule: None,
            local: None,
            ideal: None,
            target: None,
            legalized: None,
            alloc: None,
            check_alloc: false,
            coalesce: true,
            encoded: None,
            mir: crate::mir::Pipeline::default(),
        }
    }

    /// Compile without peephole optimization.
    pub fn without_peepholes(mut self) -> Self {
        self.disable_peephole = true;
        self
    }

    /// Parses and optimizes the program.
    pub fn parse(&mut self) -> Result<&mut Self, Error> {
        let src = std::mem::take(&mut self.src);
        let mut parser = Parser::new(&src, self.disable_peephole);
        let result = parser.parse();
        self.first_alias = parser.first_aliases();
        self.graph = parser.graph;
        self.show_graphs = parser.show_graphs;
        self.src = src;
        self.stop = Some(result?);
        Ok(self)
    }

    pub fn stop(&self) -> NodeId {
        self.stop.expect("parse() succeeded before stop() is asked")
    }

    /// The single Return, when the program has exactly one.
    pub fn ret(&self) -> Option<NodeId> {
        node::ret(&self.graph, self.stop())
    }

    /// The optimized program as Simple prints it, e.g. `return (arg+3);`.
    pub fn print(&self) -> String {
        node::to_string(&self.graph, self.stop())
    }

    /// Chapter 18's phases, one method each as Simple's driver has them:
    /// `opto` optimizes to a fixed point, `type_check` reports what only
    /// the optimized graph shows, `gcm` schedules (global code motion),
    /// `local_sched` orders each block (here part of `gcm`: the scheduled
    /// evaluator orders a block's nodes by their inputs).
    pub fn opto(&mut self) -> Result<&mut Self, Error> {
        crate::iter::iterate(&mut self.graph);
        crate::iter::sweep_dead(&mut self.graph);
        Ok(self)
    }

    pub fn type_check(&mut self) -> Result<&mut Self, Error> {
        if let Some(mut e) = node::first_error(&mut self.graph) {
            e.offset = e.offset.min(self.src.len());
            return Err(e);
        }
        Ok(self)
    }

    /// Chapter 19: instruction selection for CPU `cpu` (`x86_64_v2`,
    /// `riscv`, `arm`) and calling convention `abi` (`SystemV`, or `Win64`
    /// on x86). The graph becomes the machine program ([`crate::mach`]);
    /// the ideal one is kept for the evaluators. Runs before global code
    /// motion, after `type_check`; an infinite loop first gets its exit
    /// (as Simple's chapter 21 builds its loop tree before selection), so
    /// that every node is reached from Stop.
    pub fn inst_select(&mut self, cpu: &str, abi: &str) -> Result<&mut Self, Error> {
        let target = Target::parse(cpu, abi).map_err(|e| Error::new(e, 0))?;
        if self.schedule.is_some() || self.target.is_some() {
            return Err(Error::new(
                "instruction selection runs once, before global code motion",
                0,
            ));
        }
        let stop = self.stop();
        crate::gcm::give_loops_exits(&mut self.graph, stop);
        let selected = crate::mach::select::select(&self.graph, stop, target)?;
        let ideal = std::mem::replace(&mut self.graph, selected.graph);
        self.ideal = Some((ideal, stop));
        self.stop = Some(selected.stop);
        self.target = Some(target);
        crate::mir::run_hook(self, Hook::PostIsel)?;
        Ok(self)
    }

    /// Chapter 19: makes every machine operation legal for the CPU, by its
    /// rules ([`crate::mach::legalize`]). After `inst_select`.
    pub fn legalize(&mut self) -> Result<&mut Self, Error> {
        let Some(target) = self.target else {
            return Err(Error::new("legalize needs inst_select first", 0));
        };
        let rules = crate::cpu::rules(target.cpu);
        self.legalized = Some(crate::mach::legalize::legalize(&mut self.graph, &rules)?);
        crate::mir::run_hook(self, Hook::PostLegalize)?;
        Ok(self)
    }

    pub fn gcm(&mut self) -> Result<&mut Self, Error> {
        crate::mir::run_hook(self, Hook::PreScheduler)?;
        let stop = self.stop();
        self.schedule = Some(crate::gcm::global_code_motion(&mut self.graph, stop));
        Ok(self)
    }

    pub fn local_sched(&mut self) -> Result<&mut Self, Error> {
        self.local = Some(crate::list_sched::local_schedule(&self.graph));
        crate::mir::run_hook(self, Hook::PostScheduler)?;
        Ok(self)
    }

    /// Chapter 20: register allocation ([`crate::regalloc`]), after
    /// `local_sched` on a selected program. Splits go into the graph and
    /// the local schedule; the locations into `alloc`.
    pub fn reg_alloc(&mut self) -> Result<&mut Self, Error> {
        if self.target.is_none() || self.schedule.is_none() || self.local.is_none() {
            return Err(Error::new(
                "reg_alloc needs inst_select, gcm and local_sched first",
                0,
            ));
        }
        if self.alloc.is_some() {
            return Err(Error::new("registers are allocated once", 0));
        }
        crate::mir::run_hook(self, Hook::PreRegalloc)?;
        let (Some(target), Some(s), Some(local)) =
            (self.target, self.schedule.as_ref(), self.local.as_mut())
        else {
            return Err(Error::new("reg_alloc lost its schedule", 0));
        };
        let alloc = crate::regalloc::allocate(&mut self.graph, s, local, target, self.coalesce)?;
        if cfg!(debug_assertions) || self.check_alloc {
            crate::regalloc::checker::check(&self.graph, local, target, &alloc).map_err(|e| {
                Error::new(
                    format!("the register allocation checker refused the allocation: {e}"),
                    0,
                )
            })?;
        }
        self.alloc = Some(alloc);
        crate::mir::run_hook(self, Hook::PostRegalloc)?;
        Ok(self)
    }

    /// Chapter 21: encodes the allocated program ([`crate::encode`]).
    pub fn encode(&mut self) -> Result<&mut Self, Error> {
        if self.alloc.is_none() {
            return Err(Error::new("encode needs reg_alloc first", 0));
        }
        crate::mir::run_hook(self, Hook::PostPrologEpilog)?;
        crate::mir::run_hook(self, Hook::Preemit)?;
        self.encoded = Some(crate::encode::encode(self)?);
        crate::mir::run_hook(self, Hook::Final)?;
        // Sealed: always runs, whatever passes are registered.
        crate::mir::final_verify(self)?;
        Ok(self)
    }

    /// Chapter 21: the encoded program as an ELF relocatable object.
    pub fn object(&self) -> Result<Vec<u8>, Error> {
        let e = self
            .encoded
            .as_ref()
            .ok_or_else(|| Error::new("object needs encode first", 0))?;
        crate::encode::elf::write_elf(&e.program)
            .map_err(|m| Error::new(format!("internal error writing the object: {m}"), 0))
    }

    /// Chapter 21: what the program's top level returns.
    pub fn returns(&self) -> crate::run::Returns {
        crate::run::top_level_returns(&self.graph)
    }

    /// Chapter 19: the selected and scheduled program, block by block, in
    /// the CPU's assembler syntax; empty before `local_sched`. Chapter 20:
    /// once registers are allocated, with registers and stack slots, and
    /// each function's prologue and epilogues. Chapter 21: once encoded,
    /// the bytes and instructions as `llvm-objdump -d` lists them.
    pub fn asm(&self) -> String {
        // Chapter 21: once encoded, what was encoded.
        if let Some(e) = &self.encoded {
            return crate::encode::listing::listing(e);
        }
        match (&self.schedule, &self.local) {
            (Some(s), Some(local)) => crate::asm::listing(
                &self.graph,
                s,
                local,
                self.stop(),
                self.alloc.as_ref().zip(self.target),
            ),
            _ => String::new(),
        }
    }

    /// Optimizes to a fixed point: revisits every node that may improve
    /// until none does (see `iter.rs`). Then checks what only the optimized
    /// graph can tell: that no field is accessed through a pointer that may
    /// be null, that every store fits its field, that `+` and `*` have
    /// integers (the error first in the source is reported).
    pub fn iterate(&mut self) -> Result<&mut Self, Error> {
        self.opto()?.type_check()?.gcm()?.local_sched()
    }

    /// The scheduled program, block by block (Simple's scheduled IR
    /// listing); empty before `iterate` has scheduled it.
    pub fn ir(&self) -> String {
        match &self.schedule {
            Some(s) => crate::gcm::print_scheduled(&self.graph, s, self.stop(), u32::MAX),
            None => String::new(),
        }
    }

    /// Runs the scheduled program block by block, as a machine would: each
    /// block computes its nodes in order, stores write to and loads read
    /// from one mutable heap. Needs `iterate` first (it schedules).
    pub fn eval_scheduled(&self, arg: i64, loops: usize) -> crate::eval::Outcome {
        if self.ideal.is_some() {
            return crate::eval::Outcome::Fault(
                "the scheduled evaluator runs the ideal schedule, not machine code".into(),
            );
        }
        match &self.schedule {
            Some(_) => crate::exec::execute(
                &self.graph,
                &self.first_alias,
                self.local.as_ref(),
                arg,
                loops,
            ),
            None => crate::eval::Outcome::Fault("the program is not scheduled yet".into()),
        }
    }

    /// Changes the seed of the order in which `iterate` visits nodes. The
    /// result must not depend on it; tests use this to check that it does not.
    pub fn with_seed(&mut self, seed: u64) -> &mut Self {
        self.graph.work.reseed(seed);
        self
    }

    /// Runs the program with `arg` bound to `arg`, allowing at most `loops`
    /// trips around loop back edges.
    pub fn eval(&self, arg: i64, loops: usize) -> crate::eval::Outcome {
        // Chapter 19: after selection, the ideal graph (what selection
        // must not change the meaning of).
        let (graph, stop) = match &self.ideal {
            Some((g, s)) => (g, *s),
            None => (&self.graph, self.stop()),
        };
        crate::eval::evaluate(graph, stop, &self.first_alias, arg, loops)
    }

    /// The graph in Graphviz form.
    pub fn dot(&self) -> String {
        dot::generate(&self.graph, &self.src, &[])
    }
}
