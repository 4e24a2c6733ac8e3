//! # Simple, chapter 15: arrays
//!
//! A compiler for the Simple language of chapter 15, from source text to an
//! optimized sea-of-nodes graph. The parser ([`parser`]) builds the graph and
//! peepholes every node as it is made ([`node`]); types come from an interned
//! lattice ([`types`]); nodes live in an arena with consistent edges
//! ([`graph`]). [`CodeGen`] drives it all:
//!
//! ```
//! let mut code = chapter15::CodeGen::new("return 1+arg+2;");
//! code.parse().unwrap();
//! assert_eq!(code.print(), "return (arg+3);");
//! ```

pub mod codegen;
pub mod dot;
pub mod double;
pub mod error;
pub mod eval;
pub mod exec;
pub mod gcm;
pub mod graph;
pub mod iter;
pub mod lexer;
pub mod node;
pub mod parser;
pub mod pmap;
pub mod types;

pub use codegen::CodeGen;
pub use error::Error;
pub use eval::{Outcome, Value};
pub use graph::{Graph, NodeId};
pub use node::NodeKind;
