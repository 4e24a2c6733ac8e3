//! The parser: source text straight to a sea-of-nodes graph.
//!
//! A recursive-descent parser that builds nodes as it reads; there is no
//! syntax tree.
//!
//! ```text
//! program    : 'return' integer ';'
//! ```

use crate::error::Error;
use crate::graph::{Graph, NodeId};
use crate::lexer::Lexer;
use crate::node::{self, return_new};

pub struct Parser<'a> {
    lexer: Lexer<'a>,
    pub graph: Graph,
}

type Parsed = Result<NodeId, Error>;

impl<'a> Parser<'a> {
    /// A parser for `src`.
    pub fn new(src: &'a str) -> Self {
        let mut graph = Graph::new();
        node::start_new(&mut graph);
        Parser {
            lexer: Lexer::new(src),
            graph,
        }
    }

    /// Parses the whole program and returns its Return.
    pub fn parse(&mut self) -> Parsed {
        let ret = self.parse_statement()?;
        if !self.lexer.is_eof() {
            let at = self.lexer.token_start();
            let tok = self.lexer.any_next_token();
            return Err(Error::new(format!("Syntax error, unexpected {tok}"), at));
        }
        Ok(ret)
    }

    /// The only statement of this chapter: `return`.
    fn parse_statement(&mut self) -> Parsed {
        if self.lexer.matchx("return") {
            self.parse_return()
        } else {
            Err(self.error_syntax("a statement"))
        }
    }

    /// `return expr ;`
    fn parse_return(&mut self) -> Parsed {
        let expr = self.parse_expression()?;
        self.require(";")?;
        let start = self.graph.start();
        Ok(return_new(&mut self.graph, start, expr))
    }

    /// An expression is just an integer literal in this chapter.
    fn parse_expression(&mut self) -> Parsed {
        self.parse_primary()
    }

    fn parse_primary(&mut self) -> Parsed {
        let at = self.lexer.token_start();
        if self.lexer.is_number() {
            return self.parse_integer_literal();
        }
        Err(Error::new("Syntax error, expected integer literal", at))
    }

    /// `[1-9][0-9]* | 0`, as a 64-bit signed integer.
    fn parse_integer_literal(&mut self) -> Parsed {
        let at = self.lexer.pos();
        let digits = self.lexer.number_string();
        if digits.len() > 1 && digits.starts_with('0') {
            return Err(Error::new(
                "Syntax error: integer values cannot start with '0'",
                at,
            ));
        }
        let value: i64 = digits.parse().map_err(|_| {
            Error::new(
                format!("Syntax error: integer literal out of range: {digits}"),
                at,
            )
        })?;
        let ty = self.graph.types.int(value);
        Ok(node::new_constant(&mut self.graph, ty))
    }

    fn require(&mut self, syntax: &str) -> Result<(), Error> {
        if self.lexer.matches(syntax) {
            Ok(())
        } else {
            Err(self.error_syntax(syntax))
        }
    }

    fn error_syntax(&mut self, expected: &str) -> Error {
        let at = self.lexer.token_start();
        let tok = self.lexer.any_next_token();
        Error::new(format!("Syntax error, expected {expected}: {tok}"), at)
    }
}
