//! # Simple, chapter 18: functions and calls
//!
//! A compiler for the Simple language of chapter 18, from source text to an
//! optimized sea-of-nodes graph. Functions are values (`{ int x -> x*x; }`),
//! the program is the function `main`, and each function has one Return.
//! The parser ([`parser`]) builds the graph and peepholes every node as it
//! is made ([`node`]): Fun, Parm, Call and CallEnd carry functions and
//! calls, which the optimizer links and, for a function with one call
//! site, inlines. Types come from an interned lattice ([`types`]), with
//! function pointer types; nodes live in an arena with consistent edges
//! ([`graph`]). [`CodeGen`] drives it all, phase by phase (`parse`,
//! `opto`, `type_check`, `gcm`, `local_sched`):
//!
//! ```
//! let mut code = chapter20::CodeGen::new("val sq = { int x -> x*x; }; return sq(arg)+1;");
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
pub mod regalloc;
pub mod types;

pub use codegen::CodeGen;
pub use error::Error;
pub use eval::{Outcome, Value};
pub use graph::{Graph, NodeId};
pub use node::NodeKind;
