//! The driver: one object that carries a program through the phases.
//!
//! Every chapter has the same driver with the same methods, grown as the
//! chapters grow, so that the `simple` command can run any chapter. In this
//! chapter there is one phase, `parse`, and two views of the result, `print`
//! and `dot`.

use crate::dot;
use crate::error::Error;
use crate::graph::{Graph, NodeId};
use crate::node;
use crate::parser::Parser;

/// A compilation of one Simple program.
pub struct CodeGen {
    pub src: String,
    /// The graph, once parsed.
    pub graph: Graph,
    /// The Return node, once parsed.
    pub ret: Option<NodeId>,
}

impl CodeGen {
    pub fn new(src: &str) -> Self {
        CodeGen {
            src: src.to_owned(),
            graph: Graph::new(),
            ret: None,
        }
    }

    /// Parses the program.
    pub fn parse(&mut self) -> Result<&mut Self, Error> {
        let src = std::mem::take(&mut self.src);
        let mut parser = Parser::new(&src);
        let result = parser.parse();
        self.graph = parser.graph;
        self.src = src;
        self.ret = Some(result?);
        Ok(self)
    }

    /// The program's Return, once parsed.
    pub fn ret(&self) -> Option<NodeId> {
        self.ret
    }

    /// The optimized program as Simple prints it, e.g. `return (arg+3);`.
    pub fn print(&self) -> String {
        let ret = self.ret.expect("parse() succeeded before print() is asked");
        node::to_string(&self.graph, ret)
    }

    /// The graph in Graphviz form.
    pub fn dot(&self) -> String {
        dot::generate(&self.graph, &self.src)
    }
}
