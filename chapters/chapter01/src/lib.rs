//! # Simple, chapter 1: a program that returns a constant
//!
//! A compiler for the Simple language of chapter 1, from source text to a
//! sea-of-nodes graph. The parser ([`parser`]) builds the graph of nodes
//! ([`node`]); constants carry interned types ([`types`]); nodes live in an
//! arena with consistent edges ([`graph`]). [`CodeGen`] drives it all:
//!
//! ```
//! let mut code = chapter01::CodeGen::new("return 7;");
//! code.parse().unwrap();
//! assert_eq!(code.print(), "return 7;");
//! ```

pub mod codegen;
pub mod dot;
pub mod error;
pub mod graph;
pub mod lexer;
pub mod node;
pub mod parser;
pub mod types;

pub use codegen::CodeGen;
pub use error::Error;
pub use graph::{Graph, NodeId};
pub use node::NodeKind;
