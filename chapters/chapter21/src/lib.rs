//! # Simple, chapter 21: encoding, ELF objects, and code that runs
//!
//! A compiler for the Simple language of chapter 18, from source text to
//! machine code for x86-64, RISC-V or AArch64, written as an ELF object
//! and run. The parser ([`parser`]) builds the sea-of-nodes graph and
//! peepholes every node as it is made ([`node`]); types come from an
//! interned lattice ([`types`]); nodes live in an arena with consistent
//! edges ([`graph`]). The backend selects each CPU's operations
//! ([`mach::select`], rules per CPU in [`cpu`]), legalizes them
//! ([`mach::legalize`]), places and orders them ([`gcm`],
//! [`list_sched`]), allocates registers by graph colouring with
//! splitting and coalescing ([`regalloc`]), which an independent checker
//! ([`regalloc::checker`]) proves sound, and encodes the result through
//! the shared `isa` crate ([`encode`]) into an ELF object
//! ([`encode::elf`]) that runs ([`run`]). [`CodeGen`] drives it all,
//! phase by phase (`parse`, `opto`, `type_check`, `inst_select`,
//! `legalize`, `gcm`, `local_sched`, `reg_alloc`, `encode`):
//!
//! ```
//! let mut code = chapter21::CodeGen::new("val sq = { int x -> x*x; }; return sq(arg)+1;");
//! code.parse().unwrap().opto().unwrap();
//! assert_eq!(code.print(), "return ((arg*arg)+1);");
//! ```

pub mod asm;
pub mod codegen;
pub mod cpu;
pub mod dot;
pub mod double;
pub mod encode;
pub mod error;
pub mod eval;
pub mod exec;
pub mod gcm;
pub mod graph;
pub mod idx_set;
pub mod iter;
pub mod lexer;
pub mod list_sched;
pub mod mach;
pub mod mir;
pub mod node;
pub mod parser;
pub mod pmap;
pub mod regalloc;
pub mod run;
pub mod types;

pub use codegen::CodeGen;
pub use error::Error;
pub use eval::{Outcome, Value};
pub use graph::{Graph, NodeId};
pub use node::NodeKind;
