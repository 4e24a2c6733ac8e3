//! # Simple, chapter 3: variables and scopes
//!
//! A compiler for the Simple language of chapter 3, from source text to an
//! optimized sea-of-nodes graph. The parser ([`parser`]) builds the graph and
//! peepholes every node as it is made ([`node`]); types come from an interned
//! lattice ([`types`]); nodes live in an arena with consistent edges
//! ([`graph`]). [`CodeGen`] drives it all:
//!
//! ```
//! let mut code = chapter03::CodeGen::new("int a = 1; return a+2;");
//! code.parse().unwrap();
//! assert_eq!(code.print(), "return 3;");
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
