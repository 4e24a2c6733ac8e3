//! The parser: source text straight to a sea-of-nodes graph.
//!
//! A recursive-descent parser that builds and optimizes nodes as it reads;
//! there is no syntax tree. Each node is peepholed the moment it is made, so
//! `1+2` never exists as an Add: the parser receives the constant 3.
//!
//! ```text
//! program    : statement*
//! statement  : 'return' expr ';' | 'int' id '=' expr ';' | id '=' expr ';'
//!            | '{' statement* '}' | '#showGraph' ';' | ';'
//! expr       : additive
//! additive   : multiplicative [('+' | '-') additive]
//! multiplicative : unary [('*' | '/') multiplicative]
//! unary      : '-' unary | primary
//! primary    : integer | id | '(' expr ')'
//! ```
//!
//! Binary operators are parsed right-recursively, as in Simple.
//! Recursion is guarded: the machine stack grows on demand and nesting past
//! [`MAX_NESTING`] levels is an error, not a crash.

use crate::dot;
use crate::error::Error;
use crate::graph::{Graph, NodeId};
use crate::lexer::Lexer;
use crate::node::{self, return_new, scope, NodeKind};

/// The deepest nesting of statements and expressions accepted.
pub const MAX_NESTING: usize = 50_000;

const KEYWORDS: [&str; 2] = ["int", "return"];

pub struct Parser<'a> {
    lexer: Lexer<'a>,
    src: &'a str,
    pub graph: Graph,
    /// The symbol tables.
    scope: NodeId,
    /// The Graphviz text of each `#showGraph`, in program order.
    pub show_graphs: Vec<String>,
    depth: usize,
}

type Parsed = Result<NodeId, Error>;

impl<'a> Parser<'a> {
    /// A parser for `src`.
    pub fn new(src: &'a str, disable_peephole: bool) -> Self {
        let mut graph = Graph::new();
        graph.disable_peephole = disable_peephole;
        let scope = scope::new(&mut graph);
        node::start_new(&mut graph);
        Parser {
            lexer: Lexer::new(src),
            src,
            graph,
            scope,
            show_graphs: Vec::new(),
            depth: 0,
        }
    }

    /// Parses the whole program and returns its Return, which must be the
    /// last statement.
    pub fn parse(&mut self) -> Parsed {
        let last = self.parse_block()?;
        if !self.lexer.is_eof() {
            let at = self.lexer.token_start();
            let tok = self.lexer.any_next_token();
            return Err(Error::new(format!("Syntax error, unexpected {tok}"), at));
        }
        match last {
            Some(ret) if matches!(self.graph.kind(ret), NodeKind::Return) => Ok(ret),
            _ => Err(Error::new(
                "Syntax error, expected a return statement at the end",
                self.src.len(),
            )),
        }
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

    /// `statement*` up to a `}` or the end; the braces belong to the caller.
    /// Returns the node of the last statement that made one.
    fn parse_block(&mut self) -> Result<Option<NodeId>, Error> {
        scope::push(&mut self.graph, self.scope);
        let mut last = None;
        while !self.lexer.peek_is('}') && !self.lexer.is_eof() {
            last = self.parse_statement()?.or(last);
        }
        scope::pop(&mut self.graph, self.scope);
        Ok(last)
    }

    /// A statement; its node is the Return or the assigned value, if any.
    fn parse_statement(&mut self) -> Result<Option<NodeId>, Error> {
        self.nested(|p| {
            if p.lexer.matchx("return") {
                p.parse_return()
            } else if p.lexer.matchx("int") {
                p.parse_decl()
            } else if p.lexer.matches("{") {
                let last = p.parse_block()?;
                p.require("}")?;
                Ok(last)
            } else if p.lexer.matchx("#showGraph") {
                p.show_graph();
                p.require(";")?;
                Ok(None)
            } else if p.lexer.matchx(";") {
                Ok(None) // the empty statement
            } else {
                p.parse_expression_statement()
            }
        })
    }

    /// `return expr ;`
    fn parse_return(&mut self) -> Result<Option<NodeId>, Error> {
        let expr = self.parse_expression()?;
        self.require(";")?;
        let start = self.graph.start();
        let ret = return_new(&mut self.graph, start, expr);
        Ok(Some(self.peephole(ret)))
    }

    /// `#showGraph;` records the graph as it stands.
    fn show_graph(&mut self) {
        let text = dot::generate(&self.graph, self.src, &[self.scope]);
        self.show_graphs.push(text);
    }

    /// `name = expr ;`
    fn parse_expression_statement(&mut self) -> Result<Option<NodeId>, Error> {
        let at = self.lexer.token_start();
        let name = self.require_id()?;
        self.require("=")?;
        let expr = self.parse_expression()?;
        self.require(";")?;
        if !scope::update(&mut self.graph, self.scope, &name, expr) {
            return Err(Error::new(format!("Undefined name '{name}'"), at));
        }
        Ok(Some(expr))
    }

    /// `int name = expr ;`
    fn parse_decl(&mut self) -> Result<Option<NodeId>, Error> {
        let at = self.lexer.token_start();
        let name = self.require_id()?;
        self.require("=")?;
        let expr = self.parse_expression()?;
        self.require(";")?;
        if !scope::define(&mut self.graph, self.scope, &name, expr) {
            return Err(Error::new(format!("Redefining name '{name}'"), at));
        }
        Ok(Some(expr))
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

    /// `integer | '(' expr ')' | id`
    fn parse_primary(&mut self) -> Parsed {
        let at = self.lexer.token_start();
        if self.lexer.is_number() {
            return self.parse_integer_literal();
        }
        if self.lexer.matches("(") {
            let e = self.parse_expression()?;
            self.require(")")?;
            return Ok(e);
        }
        let Some(name) = self.lexer.match_id() else {
            return Err(self.error_syntax("an identifier or expression"));
        };
        scope::lookup(&self.graph, self.scope, &name)
            .ok_or_else(|| Error::new(format!("Undefined name '{name}'"), at))
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

    /// An identifier that is not a keyword.
    fn require_id(&mut self) -> Result<String, Error> {
        let at = self.lexer.token_start();
        match self.lexer.match_id() {
            Some(id) if !KEYWORDS.contains(&id.as_str()) => Ok(id),
            id => Err(Error::new(
                format!(
                    "Expected an identifier, found '{}'",
                    id.as_deref().unwrap_or("null")
                ),
                at,
            )),
        }
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
