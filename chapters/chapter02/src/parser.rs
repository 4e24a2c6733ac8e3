//! The parser: source text straight to a sea-of-nodes graph.
//!
//! A recursive-descent parser that builds and optimizes nodes as it reads;
//! there is no syntax tree. Each node is peepholed the moment it is made, so
//! `1+2` never exists as an Add: the parser receives the constant 3.
//!
//! ```text
//! program    : 'return' expr ';'
//! expr       : additive
//! additive   : multiplicative [('+' | '-') additive]
//! multiplicative : unary [('*' | '/') multiplicative]
//! unary      : '-' unary | primary
//! primary    : integer | '(' expr ')'
//! ```
//!
//! Binary operators are parsed right-recursively, as in Simple.
//! Recursion is guarded: the machine stack grows on demand and nesting past
//! [`MAX_NESTING`] levels is an error, not a crash.

use crate::error::Error;
use crate::graph::{Graph, NodeId};
use crate::lexer::Lexer;
use crate::node::{self, return_new, NodeKind};

/// The deepest nesting of statements and expressions accepted.
pub const MAX_NESTING: usize = 50_000;

pub struct Parser<'a> {
    lexer: Lexer<'a>,
    pub graph: Graph,
    depth: usize,
}

type Parsed = Result<NodeId, Error>;

impl<'a> Parser<'a> {
    /// A parser for `src`.
    pub fn new(src: &'a str, disable_peephole: bool) -> Self {
        let mut graph = Graph::new();
        graph.disable_peephole = disable_peephole;
        node::start_new(&mut graph);
        Parser {
            lexer: Lexer::new(src),
            graph,
            depth: 0,
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

    /// Runs `f` one nesting level deeper, growing the stack when needed.
    fn nested<T>(&mut self, f: impl FnOnce(&mut Self) -> Result<T, Error>) -> Result<T, Error> {
        if self.depth >= MAX_NESTING {
            let at = self.lexer.token_start();
            return Err(Error::new(
                format!("Program nested too deeply (more than {MAX_NESTING} levels)"),
                at,
            ));
        }
        self.depth += 1;
        let result = stacker::maybe_grow(64 * 1024, 1024 * 1024, || f(self));
        self.depth -= 1;
        result
    }

    fn peephole(&mut self, n: NodeId) -> NodeId {
        node::peephole(&mut self.graph, n)
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
        let ret = return_new(&mut self.graph, start, expr);
        Ok(self.peephole(ret))
    }

    fn parse_expression(&mut self) -> Parsed {
        self.parse_addition()
    }

    /// `multiplicative [('+' | '-') additive]`
    fn parse_addition(&mut self) -> Parsed {
        self.nested(|p| {
            let lhs = p.parse_multiplication()?;
            let kind = if p.lexer.matches("+") {
                NodeKind::Add
            } else if p.lexer.matches("-") {
                NodeKind::Sub
            } else {
                return Ok(lhs);
            };
            let rhs = p.parse_addition()?;
            let n = node::new_binary(&mut p.graph, kind, lhs, rhs);
            Ok(p.peephole(n))
        })
    }

    /// `unary [('*' | '/') multiplicative]`
    fn parse_multiplication(&mut self) -> Parsed {
        self.nested(|p| {
            let lhs = p.parse_unary()?;
            let kind = if p.lexer.matches("*") {
                NodeKind::Mul
            } else if p.lexer.matches("/") {
                NodeKind::Div
            } else {
                return Ok(lhs);
            };
            let rhs = p.parse_multiplication()?;
            let n = node::new_binary(&mut p.graph, kind, lhs, rhs);
            Ok(p.peephole(n))
        })
    }

    /// `'-' unary | primary`
    fn parse_unary(&mut self) -> Parsed {
        self.nested(|p| {
            if p.lexer.matches("-") {
                let operand = p.parse_unary()?;
                let n = p.graph.add_node(NodeKind::Minus, vec![None, Some(operand)]);
                return Ok(p.peephole(n));
            }
            p.parse_primary()
        })
    }

    /// `integer | '(' expr ')'`
    fn parse_primary(&mut self) -> Parsed {
        if self.lexer.is_number() {
            return self.parse_integer_literal();
        }
        if self.lexer.matches("(") {
            let e = self.parse_expression()?;
            self.require(")")?;
            return Ok(e);
        }
        Err(self.error_syntax("integer literal"))
    }

    fn constant(&mut self, value: i64) -> NodeId {
        let ty = self.graph.types.int(value);
        let c = node::new_constant(&mut self.graph, ty);
        self.peephole(c)
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
        Ok(self.constant(value))
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
