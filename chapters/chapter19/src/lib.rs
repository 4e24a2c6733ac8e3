//! # Simple, chapter 19: instruction selection and legalization
//!
//! A compiler for the Simple language of chapter 18, from source text to a
//! scheduled machine program for x86-64, RISC-V or AArch64. The parser
//! ([`parser`]) builds the sea-of-nodes graph and peepholes every node as
//! it is made ([`node`]); types come from an interned lattice ([`types`]);
//! nodes live in an arena with consistent edges ([`graph`]). Then the
//! backend: instruction selection maps the optimized graph onto a CPU's
//! operations ([`mach::select`], with each CPU's rules in [`cpu`]), the
//! legalizer makes every operation legal by the rules the CPU declares
//! ([`mach::legalize`]), global code motion ([`gcm`]) and the list
//! scheduler ([`list_sched`]) place and order it, and [`asm`] lists it.
//! [`CodeGen`] drives it all, phase by phase (`parse`, `opto`,
//! `type_check`, `inst_select`, `legalize`, `gcm`, `local_sched`):
//!
//! ```
//! let mut code = chapter19::CodeGen::new("val sq = { int x -> x*x; }; return sq(arg)+1;");
//! code.parse().unwrap().opto().unwrap();
//! assert_eq!(code.print(), "return ((arg*arg)+1);");
//! ```

pub mod asm;
pub mod codegen;
pub mod cpu;
pub mod dot;
pub mod double;
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
pub mod node;
pub mod parser;
pub mod pmap;
pub mod types;

pub use codegen::CodeGen;
pub use error::Error;
pub use eval::{Outcome, Value};
pub use graph::{Graph, NodeId};
pub use node::NodeKind;
