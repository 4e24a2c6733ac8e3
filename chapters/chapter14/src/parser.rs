//! The parser: source text straight to a sea-of-nodes graph.
//!
//! A recursive-descent parser that builds and optimizes nodes as it reads;
//! there is no syntax tree. Each node is peepholed the moment it is made, so
//! `1+2` never exists as an Add: the parser receives the constant 3.
//!
//! ```text
//! program    : statement*
//! statement  : 'return' expr ';' | type id ['=' expr] ';'
//!            | id '=' expr ';' | expr ';'
//!            | 'struct' struct_name '{' (type id ';')* '}'
//!            | '{' statement* '}' | 'if' '(' expr ')' statement ['else' statement]
//!            | 'while' '(' expr ')' statement | 'break' ';' | 'continue' ';'
//!            | '#showGraph' ';' | ';'
//! expr       : comparison (('&' | '|' | '^') comparison)*
//! comparison : shift (('==' | '!=' | '<' | '<=' | '>' | '>=') shift)*
//! shift      : additive (('<<' | '>>>' | '>>') additive)*
//! additive   : multiplicative (('+' | '-') multiplicative)*
//! multiplicative : unary (('*' | '/') unary)*
//! unary      : '-' unary | '!' unary | postfix
//! postfix    : primary ('.' id)* ['=' expr]
//! primary    : number | 'true' | 'false' | 'null' | 'new' struct_name | id
//!            | '(' expr ')'
//! type       : prim_type ['?'] | struct_name ['?']
//! prim_type  : 'int' | 'i64' | 'i32' | 'i16' | 'i8' | 'u32' | 'u16' | 'u8'
//!            | 'byte' | 'u1' | 'bool' | 'flt' | 'f64' | 'f32'
//! ```
//!
//! A field may point to a struct (`struct N { N? next; int i; }`), and a
//! struct may be named before it is declared. A name in a type's place
//! that is not a known struct but is followed by an identifier is taken for
//! a struct declared later: a *forward reference*, a struct type with no
//! fields yet. A field or variable of that type keeps pointing to the
//! forward struct; a field access looks the struct up by name, so it finds
//! the fields once the struct is declared, and so does the check of a
//! declaration's value (`check_type`). `new` of a struct not yet declared
//! is an error.
//!
//! Memory is threaded through the scope like any variable, under names no
//! program can spell, and it is split lazily. The first `struct` binds
//! `$mem`, the whole of memory that Start hands in. Each field is an alias
//! class `N`, bound as `$N` to the very same `$mem` value: nothing has split
//! it off yet, so a Load of a field nobody stored reads `$mem` itself. A
//! Store to the field consumes the class's current state and rebinds `$N`
//! to the new one, and from then on the class is a slice of its own.
//! Because `if`, loops and lazy phis merge memory exactly as they merge
//! values, a memory Phi appears only for a class whose state differs
//! between paths, that is, only where a store split it. At a `return`, a
//! MemMerge gathers the slices that were split, over `$mem` for the rest.
//!
//! Binary operators associate to the left (`1-2-3` is `(1-2)-3`), as they
//! do in Simple from chapter 9 on; the peepholes then put sums into their
//! canonical left-leaning form.
//!
//! Chapter 12 brings floats. A number with a `.` or an `e` in it is a
//! `flt` literal. Where an int meets a float, the int is converted
//! (`ToFloat`): an operator with a float operand becomes its float
//! flavour (`node::widen`), and an int given to a `flt` variable or field
//! is converted first. A float never turns back into an int.
//!
//! Chapter 14 brings the narrow types and the bitwise operators. All
//! arithmetic is still done in 64 bits; a value given to a narrow variable
//! or field is cut down to it ([`Parser::zs_mask`]): masked for an unsigned
//! type (`u8 b = x` binds `x&255`), shifted up and back down for a signed
//! one (`i8 b = x` binds `(x<<56)>>56`, copying bit 7 into the bits above),
//! and rounded for an `f32`. The peepholes then drop what the value's range
//! shows is not needed (`u8 b = 123` is just 123). `&`, `|` and `^` bind
//! more loosely than the comparisons (`a & b == c` is `a & (b == c)`), the
//! shifts more tightly.
//! Recursion is guarded: the machine stack grows on demand and nesting past
//! [`MAX_NESTING`] levels is an error, not a crash.

use crate::dot;
use crate::error::Error;
use crate::graph::{Graph, NodeId};
use crate::lexer::Lexer;
use crate::node::{
    self, cproj_new, if_new, load_new, loop_new, mem_merge_new, new_new, proj_new, return_new,
    round_f32_new, scope, store_new, BoolOp, NodeKind, StoreField,
};
use crate::types::{TypeId, Types, PRIMITIVE_TYPES};
use rustc_hash::{FxHashMap, FxHashSet};

/// The deepest nesting of statements and expressions accepted.
pub const MAX_NESTING: usize = 50_000;

/// The words that cannot name a variable, a field or a struct, besides the
/// primitive type names.
const KEYWORDS: [&str; 11] = [
    "break", "continue", "else", "false", "if", "new", "null", "return", "struct", "true", "while",
];

/// A declared struct: its type and the alias class of its first field (the
/// others follow in order).
#[derive(Clone, Copy)]
struct StructInfo {
    ty: TypeId,
    first_alias: u32,
}

pub struct Parser<'a> {
    lexer: Lexer<'a>,
    src: &'a str,
    pub graph: Graph,
    /// The current scope; it changes at every `if`.
    scope: NodeId,
    /// Every live scope, for drawing them in `#showGraph`.
    x_scopes: Vec<NodeId>,
    pub stop: NodeId,
    /// The Graphviz text of each `#showGraph`, in program order.
    pub show_graphs: Vec<String>,
    /// Inside a loop: the scope that `continue`s merge into (none yet).
    continue_scope: Option<NodeId>,
    /// Inside a loop: the scope that `break`s and the loop exit merge into.
    break_scope: Option<NodeId>,
    depth: usize,
    /// The structs declared so far, by name.
    structs: FxHashMap<String, StructInfo>,
    /// The names used as a type before their struct was declared.
    forward: FxHashSet<String>,
    /// The alias class the next declared field gets. Class 1 stands for all
    /// of memory (`$mem`); fields count from 2.
    next_alias: u32,
}

impl Parser<'_> {
    /// For each declared struct type, the alias class of its first field.
    pub fn first_aliases(&self) -> FxHashMap<TypeId, u32> {
        self.structs
            .values()
            .map(|info| (info.ty, info.first_alias))
            .collect()
    }
}

type Parsed = Result<NodeId, Error>;

impl<'a> Parser<'a> {
    /// A parser for `src`; `arg` is a known constant or, if `None`, any
    /// integer.
    pub fn new(src: &'a str, arg: Option<i64>, disable_peephole: bool) -> Self {
        let mut graph = Graph::new();
        graph.disable_peephole = disable_peephole;
        let arg_type = match arg {
            Some(value) => graph.types.int(value),
            None => Types::INT_BOT,
        };
        let scope = scope::new(&mut graph);
        let args = graph.types.tuple(&[Types::CTRL, arg_type]);
        node::start_new(&mut graph, args);
        let stop = node::stop_new(&mut graph);
        // The constant 0 and dead control, shared by the whole program.
        let zero = node::new_constant(&mut graph, Types::INT_ZERO);
        let zero = node::peephole(&mut graph, zero);
        graph.keep(zero);
        let start = graph.start();
        let xctrl = graph.add_node(NodeKind::XCtrl, vec![Some(start)]);
        let xctrl = node::peephole(&mut graph, xctrl);
        graph.keep(xctrl);
        // Each is in the value-numbering table from the start, even with
        // peepholes off: an equal node made later gives way to it.
        graph.gvn_find_or_insert(zero);
        graph.gvn_find_or_insert(xctrl);
        graph.set_shared(zero, xctrl);
        Parser {
            lexer: Lexer::new(src),
            src,
            graph,
            scope,
            x_scopes: Vec::new(),
            stop,
            show_graphs: Vec::new(),
            continue_scope: None,
            break_scope: None,
            depth: 0,
            structs: FxHashMap::default(),
            forward: FxHashSet::default(),
            next_alias: 2,
        }
    }

    /// Parses the whole program and returns Stop.
    pub fn parse(&mut self) -> Parsed {
        self.x_scopes.push(self.scope);
        let (g, sc) = (&mut self.graph, self.scope);
        scope::push(g, sc);
        let start = g.start();
        let ctrl = cproj_new(g, start, 0, scope::CTRL);
        let ctrl = node::peephole(g, ctrl);
        scope::define(g, sc, scope::CTRL, Types::CTRL, ctrl);
        let arg = proj_new(g, start, 1, scope::ARG0);
        let arg = node::peephole(g, arg);
        scope::define(g, sc, scope::ARG0, Types::INT_BOT, arg);
        self.parse_block()?;
        // Falling off the end of the program returns 0.
        if self.graph.ty(self.ctrl()) == Types::CTRL {
            let zero = self.constant(0);
            self.add_return(zero);
        }
        scope::pop(&mut self.graph, self.scope);
        self.x_scopes.pop();
        if !self.lexer.is_eof() {
            let at = self.lexer.token_start();
            let tok = self.lexer.any_next_token();
            return Err(Error::new(format!("Syntax error, unexpected {tok}"), at));
        }
        Ok(node::peephole(&mut self.graph, self.stop))
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

    fn ctrl(&self) -> NodeId {
        scope::ctrl(&self.graph, self.scope)
    }

    fn set_ctrl(&mut self, ctrl: NodeId) -> NodeId {
        scope::set_ctrl(&mut self.graph, self.scope, ctrl)
    }

    fn peephole(&mut self, n: NodeId) -> NodeId {
        node::peephole(&mut self.graph, n)
    }

    /// `statement*` up to a `}` or the end; the braces belong to the caller.
    fn parse_block(&mut self) -> Result<(), Error> {
        scope::push(&mut self.graph, self.scope);
        while !self.lexer.peek_is('}') && !self.lexer.is_eof() {
            self.parse_statement()?;
        }
        scope::pop(&mut self.graph, self.scope);
        Ok(())
    }

    fn parse_statement(&mut self) -> Result<(), Error> {
        self.nested(|p| {
            let at = p.lexer.token_start();
            if p.lexer.matchx("return") {
                p.parse_return()
            } else if p.lexer.matchx("int") {
                // As in Simple, a `?` after a type is read for any type,
                // and means nothing for `int` or `flt`.
                p.lexer.matches("?");
                p.parse_decl(Types::INT_BOT)
            } else if p.lexer.matchx("flt") {
                p.lexer.matches("?");
                p.parse_decl(Types::FLT_BOT)
            } else if p.lexer.matches("{") {
                p.parse_block()?;
                p.require("}")
            } else if p.lexer.matchx("if") {
                p.parse_if(at)
            } else if p.lexer.matchx("while") {
                p.parse_while()
            } else if p.lexer.matchx("break") {
                p.parse_break(at)
            } else if p.lexer.matchx("continue") {
                p.parse_continue(at)
            } else if p.lexer.matchx("struct") {
                p.parse_struct()
            } else if p.lexer.matchx("#showGraph") {
                p.show_graph();
                p.require(";")
            } else if p.lexer.matchx(";") {
                Ok(()) // the empty statement
            } else {
                p.parse_expression_statement()
            }
        })
    }

    /// `if ( expr ) statement [else statement]`, `if` already read at `at`.
    fn parse_if(&mut self, at: usize) -> Result<(), Error> {
        self.require("(")?;
        let pred = self.parse_expression()?;
        self.require(")")?;
        // The predicate stays alive for the upcasts on both arms.
        self.graph.keep(pred);
        // The If is kept alive across the peephole of its True arm, which
        // may replace that arm by the If's own control; each arm is kept
        // until it is in use, so that optimizing one cannot kill the other.
        let (if_true, if_false) = self.branch(pred);

        // Each arm gets its own copy of the scope.
        let ndefs = self.graph.n_ins(self.scope);
        let mut f_scope = scope::dup(&mut self.graph, self.scope, false);
        self.x_scopes.push(f_scope);

        self.set_ctrl(if_true);
        self.graph.unkeep(if_true);
        // On the true arm the predicate is known true (a pointer not null).
        scope::upcast(&mut self.graph, self.scope, if_true, pred, false);
        self.parse_statement()?;
        let t_scope = self.scope;

        self.scope = f_scope;
        self.set_ctrl(if_false);
        self.graph.unkeep(if_false);
        // On the false arm the predicate is known false (a pointer null),
        // with or without an `else`: after `if (!p) return 0;` the code
        // that follows knows `p` is not null.
        scope::upcast(&mut self.graph, self.scope, if_false, pred, true);
        if self.lexer.matchx("else") {
            self.parse_statement()?;
            f_scope = self.scope;
        }
        self.graph.unkeep(pred);

        if self.graph.n_ins(t_scope) != ndefs || self.graph.n_ins(f_scope) != ndefs {
            return Err(Error::new(
                "Cannot define a new name on one arm of an if",
                at,
            ));
        }

        self.scope = t_scope;
        self.x_scopes.pop();
        let merged = scope::merge(&mut self.graph, t_scope, f_scope);
        self.set_ctrl(merged);
        Ok(())
    }

    /// `while ( expr ) statement`, `while` already read.
    ///
    /// The loop head is a Loop node; the body's scope binds every variable
    /// lazily to the head scope, which makes a Phi only for the variables
    /// the loop uses. The body runs on the True arm; the False arm starts the
    /// break scope, where every `break` also lands and which becomes the
    /// scope after the loop. `continue`s merge into a continue scope, which
    /// joins the end of the body to form the back edge.
    fn parse_while(&mut self) -> Result<(), Error> {
        let saved_continue = self.continue_scope;
        let saved_break = self.break_scope;
        self.require("(")?;
        let entry = self.ctrl();
        let head_ctrl = loop_new(&mut self.graph, entry);
        let head_ctrl = self.peephole(head_ctrl);
        self.set_ctrl(head_ctrl);
        // The head scope keeps the phis; the body works on a lazy copy.
        let head = self.graph.keep(self.scope);
        self.scope = scope::dup(&mut self.graph, head, true);
        self.x_scopes.push(self.scope);

        let pred = self.parse_expression()?;
        self.require(")")?;
        let (if_true, if_false) = self.branch(pred);

        // Leaving the loop: the False arm starts the break scope.
        self.set_ctrl(if_false);
        self.graph.unkeep(if_false);
        let break_scope = scope::dup(&mut self.graph, self.scope, false);
        self.x_scopes.push(break_scope);
        self.break_scope = Some(break_scope);
        self.continue_scope = None;

        self.set_ctrl(if_true);
        self.graph.unkeep(if_true);
        self.parse_statement()?;

        // The end of the body and every continue form the back edge.
        if let Some(continues) = self.continue_scope {
            let merged = self.jump_to(Some(continues));
            self.graph.kill(self.scope);
            self.scope = merged;
        }

        let exit = self.break_scope.expect("set above, restored below");
        scope::end_loop(&mut self.graph, head, self.scope, exit);
        self.graph.unkeep(head);
        self.graph.kill(head);
        self.x_scopes.pop();
        self.x_scopes.pop();
        self.continue_scope = saved_continue;
        self.break_scope = saved_break;
        self.scope = exit;
        Ok(())
    }

    /// An If on `pred` at the current control, and its True and False arms,
    /// each peepholed and kept alive (the caller unkeeps each when it puts
    /// it to use).
    fn branch(&mut self, pred: NodeId) -> (NodeId, NodeId) {
        let ctrl = self.ctrl();
        let if_node = if_new(&mut self.graph, ctrl, pred);
        let if_node = self.peephole(if_node);
        self.graph.keep(if_node);
        let if_true = cproj_new(&mut self.graph, if_node, 0, "True");
        let if_true = self.peephole(if_true);
        self.graph.keep(if_true);
        self.graph.unkeep(if_node);
        let if_false = cproj_new(&mut self.graph, if_node, 1, "False");
        let if_false = self.peephole(if_false);
        self.graph.keep(if_false);
        (if_true, if_false)
    }

    /// Jumps from here to `to` (a break or continue scope): the current
    /// scope is copied and trimmed to the loop's nesting, merged into `to`
    /// (or becomes it, if there is none yet), and control here dies.
    fn jump_to(&mut self, to: Option<NodeId>) -> NodeId {
        let cur = scope::dup(&mut self.graph, self.scope, false);
        let dead = self.graph.xctrl();
        self.set_ctrl(dead);
        let depth = self
            .break_scope
            .map_or(0, |b| scope::levels(&self.graph, b).len());
        while scope::levels(&self.graph, cur).len() > depth {
            scope::pop(&mut self.graph, cur);
        }
        match to {
            None => cur,
            Some(to) => {
                let merged = scope::merge(&mut self.graph, to, cur);
                scope::set_ctrl(&mut self.graph, to, merged);
                to
            }
        }
    }

    fn check_loop_active(&mut self, at: usize) -> Result<(), Error> {
        match self.break_scope {
            Some(_) => Ok(()),
            None => Err(Error::new("No active loop for a break or continue", at)),
        }
    }

    /// `break ;`, `break` already read at `at`.
    fn parse_break(&mut self, at: usize) -> Result<(), Error> {
        self.check_loop_active(at)?;
        let target = self.break_scope;
        self.break_scope = Some(self.jump_to(target));
        self.require(";")
    }

    /// `continue ;`, `continue` already read at `at`.
    fn parse_continue(&mut self, at: usize) -> Result<(), Error> {
        self.check_loop_active(at)?;
        let target = self.continue_scope;
        self.continue_scope = Some(self.jump_to(target));
        self.require(";")
    }

    /// `return expr ;`: adds a Return to Stop and makes control dead.
    fn parse_return(&mut self) -> Result<(), Error> {
        let expr = self.parse_expression()?;
        self.require(";")?;
        self.add_return(expr);
        let dead = self.graph.xctrl();
        self.set_ctrl(dead);
        Ok(())
    }

    /// A Return of `expr` at the current control, added to Stop.
    fn add_return(&mut self, expr: NodeId) {
        // The final state of memory goes with the Return: the classes that
        // stores split off, merged over the whole memory.
        let memory = scope::lookup(&mut self.graph, self.scope, MEM).map(|all| {
            let mut slices = Vec::new();
            for name in scope::reverse_names(&self.graph, self.scope) {
                if let Some(alias) = name.strip_prefix('$').and_then(|a| a.parse().ok()) {
                    let state = self.memory(alias);
                    if state != all {
                        slices.push((alias, state));
                    }
                }
            }
            let merge = mem_merge_new(&mut self.graph, all, &slices);
            self.peephole(merge)
        });
        let ctrl = self.ctrl();
        let ret = return_new(&mut self.graph, ctrl, expr, memory);
        let ret = self.peephole(ret);
        self.graph.add_def(self.stop, Some(ret));
    }

    /// `#showGraph;` records the graph as it stands.
    fn show_graph(&mut self) {
        let text = dot::generate(&self.graph, self.src, &self.x_scopes);
        self.show_graphs.push(text);
    }

    /// A statement that starts with a name: a declaration with a struct
    /// type (`S v = expr;`, `S? v;`), an assignment (`v = expr;`), or an
    /// expression evaluated for its effect (`v.x = 1;`).
    fn parse_expression_statement(&mut self) -> Result<(), Error> {
        let start = self.lexer.token_start();
        let declared = self.parse_type();
        let at = self.lexer.token_start();
        let name = self.require_id()?;
        let expr = if self.lexer.matches(";") {
            // A declaration without a value gets the type's zero.
            let Some(t) = declared else {
                return Err(self.error_syntax("expression"));
            };
            let init = self
                .graph
                .types
                .make_init(t)
                .expect("a variable type has a zero");
            let c = node::new_constant(&mut self.graph, init);
            self.peephole(c)
        } else if self.lexer.matches("=") {
            let e = self.parse_expression()?;
            self.require(";")?;
            e
        } else {
            // Neither: parse it all again as an expression. Its value is
            // dropped; a value nobody uses (`p.f;`) is dead code, and would
            // hang under control the schedule never reaches.
            self.lexer.set_pos(start);
            let value = self.parse_expression()?;
            if self.graph.is_unused(value) {
                self.graph.kill(value);
            }
            return self.require(";");
        };
        let (declared, expr) = match declared {
            Some(t) => {
                let expr = self.widen_to(expr, t);
                let expr = self.zs_mask(expr, t);
                if !scope::define(&mut self.graph, self.scope, &name, t, expr) {
                    return Err(Error::new(format!("Redefining name '{name}'"), at));
                }
                (t, expr)
            }
            None => {
                let found = scope::lookup(&mut self.graph, self.scope, &name);
                let t = scope::declared_type(&self.graph, self.scope, &name);
                let (Some(_), Some(t)) = (found, t) else {
                    return Err(Error::new(format!("Undefined name '{name}'"), at));
                };
                let expr = self.widen_to(expr, t);
                let expr = self.zs_mask(expr, t);
                scope::update(&mut self.graph, self.scope, &name, expr);
                (t, expr)
            }
        };
        self.check_type(expr, declared, at)
    }

    /// An int given to a `flt` variable or field is converted to a float.
    fn widen_to(&mut self, expr: NodeId, declared: TypeId) -> NodeId {
        let t = self.graph.ty(expr);
        if self.graph.types.is_flt(declared) && self.graph.types.is_int(t) {
            let conv = node::to_float_new(&mut self.graph, expr);
            self.peephole(conv)
        } else {
            expr
        }
    }

    /// `val` cut down to the narrow type `t` of the variable or field it is
    /// given to (Simple's `zsMask`), when its type does not show that it
    /// fits already: an unsigned integer keeps its low bits (`val & max`),
    /// a signed one shifts them to the top and arithmetically back down,
    /// which copies its sign bit into the bits above (`(val<<56)>>56` for
    /// an `i8`), and a float is rounded to an `f32`. The widths come from
    /// the type (`Types::int_bits`), as the layout in memory does.
    fn zs_mask(&mut self, val: NodeId, t: TypeId) -> NodeId {
        let tv = self.graph.ty(val);
        if self.graph.types.isa(tv, t) {
            return val;
        }
        if self.graph.types.is_flt(tv) && self.graph.types.is_flt(t) {
            let round = round_f32_new(&mut self.graph, val);
            return self.peephole(round);
        }
        let (Some(range), Some(bits)) =
            (self.graph.types.int_bounds(t), self.graph.types.int_bits(t))
        else {
            return val;
        };
        if !self.graph.types.is_int(tv) {
            return val;
        }
        if range.min == 0 {
            let mask = self.constant(range.max);
            let and = node::new_binary(&mut self.graph, NodeKind::And, val, mask);
            return self.peephole(and);
        }
        let shift = self.constant(i64::from(64 - bits));
        self.graph.keep(shift);
        let up = node::new_binary(&mut self.graph, NodeKind::Shl, val, shift);
        let up = self.peephole(up);
        self.graph.unkeep(shift);
        let down = node::new_binary(&mut self.graph, NodeKind::Sar, up, shift);
        self.peephole(down)
    }

    /// Pointer type `t` deepened: if it points to a forward reference whose
    /// struct has been declared since, a pointer to that struct instead.
    /// A field `N? next` of `struct N` points to the forward `N`, and a
    /// pointer to the forward `N` is no pointer to the declared `N`, but
    /// what it points to is the same struct.
    fn deepen(&mut self, t: TypeId) -> TypeId {
        let types = &mut self.graph.types;
        if let Some(obj) = types.pointee(t).filter(|&obj| types.is_forward(obj)) {
            let name = types.struct_name(obj).expect("a struct");
            if let Some(info) = self.structs.get(name) {
                return types.ptr_to(t, info.ty);
            }
        }
        t
    }

    /// The value's type, deepened, must fit the variable's declared type.
    fn check_type(&mut self, expr: NodeId, declared: TypeId, at: usize) -> Result<(), Error> {
        let t = self.graph.ty(expr);
        let t = self.deepen(t);
        if self.graph.types.isa(t, declared) {
            return Ok(());
        }
        let types = &self.graph.types;
        Err(Error::new(
            format!(
                "Type {} is not of declared type {}",
                types.str(t),
                types.str(declared)
            ),
            at,
        ))
    }

    /// A type name, if one is next: `int`, `flt`, or a struct name making
    /// a pointer type, nullable with a `?` (read after `int` and `flt` too,
    /// and ignored). A name that is no known struct, but is followed by another
    /// name (`Node next`), is a struct declared later: a forward reference.
    /// The following name is left for the caller. If no type is next,
    /// nothing is consumed.
    fn parse_type(&mut self) -> Option<TypeId> {
        let start = self.lexer.token_start();
        let name = self.lexer.match_id()?;
        let nil = self.lexer.matches("?");
        if let Some(t) = prim_type(&name) {
            return Some(t);
        }
        if let Some(info) = self.structs.get(&name).copied() {
            return Some(self.graph.types.ptr(info.ty, nil));
        }
        // A keyword is no struct name (Simple's parser does not check, so
        // `new S;` would declare `S` of a struct type named `new`).
        if !KEYWORDS.contains(&name.as_str()) && !self.forward.contains(&name) {
            let after = self.lexer.pos();
            let next_is_name = self.lexer.match_id().is_some();
            self.lexer.set_pos(after);
            if next_is_name {
                self.forward.insert(name.clone());
            }
        }
        if self.forward.contains(&name) {
            let obj = self.graph.types.struct_forward(&name);
            return Some(self.graph.types.ptr(obj, nil));
        }
        self.lexer.set_pos(start);
        None
    }

    /// `int name [= expr] ;` (or `flt`), the type already read; without a
    /// value, 0 (or 0.0).
    fn parse_decl(&mut self, declared: TypeId) -> Result<(), Error> {
        let at = self.lexer.token_start();
        let name = self.require_id()?;
        let expr = if self.lexer.matches(";") {
            let init = self
                .graph
                .types
                .make_init(declared)
                .expect("int and flt have a zero");
            let c = node::new_constant(&mut self.graph, init);
            self.peephole(c)
        } else {
            self.require("=")?;
            let e = self.parse_expression()?;
            self.require(";")?;
            self.widen_to(e, declared)
        };
        self.check_type(expr, declared, at)?;
        if !scope::define(&mut self.graph, self.scope, &name, declared, expr) {
            return Err(Error::new(format!("Redefining name '{name}'"), at));
        }
        Ok(())
    }

    /// `struct S { int a; flt b; S? next; }`, `struct` already read. Each field
    /// becomes an alias class, bound in the scope as `$N` to the whole
    /// memory `$mem` (made from Start by the first struct) until a store
    /// splits it off. A struct that was only named so far (a forward
    /// reference) is now declared; one declared already cannot be again.
    fn parse_struct(&mut self) -> Result<(), Error> {
        // Memory slices live in the program's outermost block, so that
        // they outlive every statement that may use them.
        if self.x_scopes.len() > 1 || scope::levels(&self.graph, self.scope).len() > 2 {
            return Err(self.error_syntax("struct declarations can only appear in top level scope"));
        }
        let name = self.require_id()?;
        if self.structs.contains_key(&name) {
            return Err(self.error_syntax(&format!("struct '{name}' cannot be redefined")));
        }
        self.require("{")?;
        let mut fields: Vec<TypeId> = Vec::new();
        while !self.lexer.peek_is('}') && !self.lexer.is_eof() {
            let at = self.lexer.token_start();
            let Some(ty) = self.parse_type() else {
                // Simple's words, which name the token found and then the
                // one after it.
                self.lexer.set_pos(at);
                let found = self.lexer.any_next_token();
                let mut e = self.error_syntax(&format!("Requires a field type, found '{found}'"));
                e.offset = at;
                return Err(e);
            };
            let at = self.lexer.token_start();
            let fname = self.require_id()?;
            let field = self.graph.types.field(&fname, ty);
            self.require(";")?;
            if fields.contains(&field) {
                let shown = self.graph.types.to_string(field);
                let mut e = self.error_syntax(&format!(
                    "Field '{shown}' already defined in struct '{name}'"
                ));
                e.offset = at;
                return Err(e);
            }
            fields.push(field);
        }
        self.require("}")?;
        let ty = self.graph.types.struct_of(&name, &fields);
        let first_alias = self.next_alias;
        self.next_alias += fields.len() as u32;
        self.structs.insert(name, StructInfo { ty, first_alias });
        let all = match scope::lookup(&mut self.graph, self.scope, MEM) {
            Some(all) => all,
            None => {
                let start = self.graph.start();
                let idx = node::start_add_memory(&mut self.graph);
                let proj = proj_new(&mut self.graph, start, idx, MEM);
                let proj = self.peephole(proj);
                scope::define(&mut self.graph, self.scope, MEM, Types::MEM_BOT, proj);
                proj
            }
        };
        for alias in first_alias..self.next_alias {
            let mem = self.graph.types.mem(alias);
            scope::define(&mut self.graph, self.scope, &mem_name(alias), mem, all);
        }
        Ok(())
    }

    fn parse_expression(&mut self) -> Parsed {
        self.parse_bitwise()
    }

    /// `comparison (op comparison)*` for `&`, `|` and `^`, left to right,
    /// all three at one level, the loosest. (As in Simple, these operands
    /// are not widened: a float operand is an error.) This level and the
    /// shifts' do not count towards [`MAX_NESTING`]: each lies between two
    /// levels that do, which guard the stack.
    fn parse_bitwise(&mut self) -> Parsed {
        let mut lhs = self.parse_comparison()?;
        loop {
            let at = self.lexer.token_start();
            let kind = if self.lexer.matches("&") {
                NodeKind::And
            } else if self.lexer.matches("|") {
                NodeKind::Or
            } else if self.lexer.matches("^") {
                NodeKind::Xor
            } else {
                return Ok(lhs);
            };
            let n = self.graph.add_node(kind, vec![None, Some(lhs), None]);
            let rhs = self.parse_comparison()?;
            self.graph.set_def(n, 2, Some(rhs));
            lhs = self.peephole(n);
            self.note_operator(n, at);
        }
    }

    /// `shift (op shift)*` for the six comparisons, left to right.
    ///
    /// As in Simple, each operator node is made before its right operand is
    /// parsed (so node ids follow Simple's) and gets that operand after.
    fn parse_comparison(&mut self) -> Parsed {
        self.nested(|p| {
            let mut lhs = p.parse_shift()?;
            loop {
                // (operator, the slot the right operand goes in, negate)
                let (op, slot, negate) = if p.lexer.matches("==") {
                    (BoolOp::Eq, 2, false)
                } else if p.lexer.matches("!=") {
                    (BoolOp::Eq, 2, true)
                } else if p.lexer.matches("<=") {
                    (BoolOp::Le, 2, false)
                } else if p.lexer.matches("<") {
                    (BoolOp::Lt, 2, false)
                } else if p.lexer.matches(">=") {
                    (BoolOp::Le, 1, false) // a >= b is b <= a
                } else if p.lexer.matches(">") {
                    (BoolOp::Lt, 1, false) // a > b is b < a
                } else {
                    return Ok(lhs);
                };
                let inputs = if slot == 2 {
                    vec![None, Some(lhs), None]
                } else {
                    vec![None, None, Some(lhs)]
                };
                let cmp = p.graph.add_node(NodeKind::Bool(op), inputs);
                let rhs = p.parse_shift()?;
                p.graph.set_def(cmp, slot, Some(rhs));
                let cmp = node::widen(&mut p.graph, cmp);
                lhs = p.peephole(cmp);
                if negate {
                    let not = p.graph.add_node(NodeKind::Not, vec![None, Some(lhs)]);
                    lhs = p.peephole(not);
                }
            }
        })
    }

    /// `additive (('<<' | '>>>' | '>>') additive)*`, left to right. The
    /// comparisons are tried only once no shift matches, so `<` is never
    /// the start of a `<<`.
    fn parse_shift(&mut self) -> Parsed {
        let mut lhs = self.parse_addition()?;
        loop {
            let at = self.lexer.token_start();
            let kind = if self.lexer.matches("<<") {
                NodeKind::Shl
            } else if self.lexer.matches(">>>") {
                NodeKind::Shr
            } else if self.lexer.matches(">>") {
                NodeKind::Sar
            } else {
                return Ok(lhs);
            };
            let n = self.graph.add_node(kind, vec![None, Some(lhs), None]);
            let rhs = self.parse_addition()?;
            self.graph.set_def(n, 2, Some(rhs));
            let n = node::widen(&mut self.graph, n);
            lhs = self.peephole(n);
            self.note_operator(n, at);
        }
    }

    /// `multiplicative (('+' | '-') multiplicative)*`, left to right.
    fn parse_addition(&mut self) -> Parsed {
        self.nested(|p| {
            let mut lhs = p.parse_multiplication()?;
            loop {
                let at = p.lexer.token_start();
                let kind = if p.lexer.matches("+") {
                    NodeKind::Add
                } else if p.lexer.matches("-") {
                    NodeKind::Sub
                } else {
                    return Ok(lhs);
                };
                let n = p.graph.add_node(kind, vec![None, Some(lhs), None]);
                let rhs = p.parse_multiplication()?;
                p.graph.set_def(n, 2, Some(rhs));
                let n = node::widen(&mut p.graph, n);
                lhs = p.peephole(n);
                p.note_operator(n, at);
            }
        })
    }

    /// `unary (('*' | '/') unary)*`, left to right.
    fn parse_multiplication(&mut self) -> Parsed {
        self.nested(|p| {
            let mut lhs = p.parse_unary()?;
            loop {
                let at = p.lexer.token_start();
                let kind = if p.lexer.matches("*") {
                    NodeKind::Mul
                } else if p.lexer.matches("/") {
                    NodeKind::Div
                } else {
                    return Ok(lhs);
                };
                let n = p.graph.add_node(kind, vec![None, Some(lhs), None]);
                let rhs = p.parse_unary()?;
                p.graph.set_def(n, 2, Some(rhs));
                let n = node::widen(&mut p.graph, n);
                lhs = p.peephole(n);
                p.note_operator(n, at);
            }
        })
    }

    /// Remembers that the operator at `at` made node `first` and whatever
    /// its peephole made after it: each Add and Mul, bitwise operator and
    /// shift among them gets this place, which the check after
    /// optimization names (`Cannot 'Add' null`, `Cannot '&' FltBot`).
    fn note_operator(&mut self, first: NodeId, at: usize) {
        let at = node::source_offset(at);
        for n in self.graph.ids().skip(first.nid() as usize - 1) {
            if matches!(
                self.graph.kind(n),
                NodeKind::Add
                    | NodeKind::Mul
                    | NodeKind::And
                    | NodeKind::Or
                    | NodeKind::Xor
                    | NodeKind::Shl
                    | NodeKind::Sar
                    | NodeKind::Shr
            ) {
                self.graph.operator_at.entry(n).or_insert(at);
            }
        }
    }

    /// `'-' unary | '!' unary | postfix`
    fn parse_unary(&mut self) -> Parsed {
        self.nested(|p| {
            if p.lexer.matches("-") {
                let operand = p.parse_unary()?;
                let n = p.graph.add_node(NodeKind::Minus, vec![None, Some(operand)]);
                let n = node::widen(&mut p.graph, n);
                return Ok(p.peephole(n));
            }
            if p.lexer.matches("!") {
                let operand = p.parse_unary()?;
                let n = p.graph.add_node(NodeKind::Not, vec![None, Some(operand)]);
                return Ok(p.peephole(n));
            }
            let primary = p.parse_primary()?;
            p.parse_postfix(primary)
        })
    }

    /// `('.' field)*`, and a final `= expr` makes the last field access a
    /// store. A store's value as an expression is the object itself.
    fn parse_postfix(&mut self, expr: NodeId) -> Parsed {
        let mut expr = expr;
        loop {
            let dot = self.lexer.token_start();
            if !self.lexer.matches(".") {
                return Ok(expr);
            }
            let t = self.graph.ty(expr);
            // `Top` is a pointer too, one no value has: a null seen as not
            // null on an arm that never runs (the optimizer folds that arm
            // away; without peepholes it stays), met below.
            if !self.graph.types.is_ptr(t) && t != Types::TOP {
                let shown = self.graph.types.str(t);
                return Err(Error::new(
                    format!("Expected struct reference but got {shown}"),
                    dot,
                ));
            }
            let at = self.lexer.token_start();
            let name = self.require_id()?;
            // A pointer that can only be null (a test of it proved it
            // non-null where it is null everywhere): Simple's chapter 12
            // words.
            if t == Types::PTR_TOP || t == Types::TOP {
                return Err(Error::new(
                    format!("Accessing field '{name}' from null"),
                    at,
                ));
            }
            // The struct is looked up by name: a pointer to a forward
            // reference finds the fields declared since.
            let obj = self.graph.types.pointee(t).expect("a pointer type");
            let info = self
                .graph
                .types
                .struct_name(obj)
                .and_then(|s| self.structs.get(s).copied());
            let field = info.and_then(|info| self.graph.types.field_index(info.ty, &name));
            let (Some(idx), Some(info)) = (field, info) else {
                let shown = self.graph.types.str(t);
                return Err(Error::new(
                    format!("Accessing unknown field '{name}' from '{shown}'"),
                    at,
                ));
            };
            let alias = info.first_alias + idx as u32;
            let declared = self.graph.types.field_type(info.ty, idx);
            if self.lexer.matches("=") {
                if self.lexer.peek_is('=') {
                    // It was `==`: put the first '=' back.
                    let pos = self.lexer.pos();
                    self.lexer.set_pos(pos - 1);
                } else {
                    let value = self.parse_expression()?;
                    let value = self.store_value(value, info.ty, idx);
                    let ctrl = self.ctrl();
                    let mem = self.memory(alias);
                    let field = StoreField {
                        name: &name,
                        alias,
                        declared,
                        init: false,
                    };
                    let st = store_new(&mut self.graph, field, at, ctrl, mem, expr, value);
                    let st = self.peephole(st);
                    scope::update(&mut self.graph, self.scope, &mem_name(alias), st);
                    return Ok(expr);
                }
            }
            // A pointer loaded may be null, whatever the field says: every
            // reference field starts out null. And it points to the struct
            // as declared by now, as a pointer made by `new` does: a loop
            // variable that takes both (`head = head.next`) keeps one type.
            // Only the pointer is lowered to nullable: the struct keeps its
            // fields' narrow types, as the struct a variable is declared
            // with does (lowering `u8` to `int` in there made `S? p =
            // q.f` a type error without peepholes; found by simple fuzz).
            let declared = match self.graph.types.pointee(declared) {
                Some(obj) => self.graph.types.ptr(obj, true),
                None => self.graph.types.glb(declared),
            };
            let declared = self.deepen(declared);
            let mem = self.memory(alias);
            let load = load_new(&mut self.graph, &name, alias, declared, at, mem, expr);
            expr = self.peephole(load);
        }
    }

    /// The value stored into field `idx` of struct `obj`, cut to a narrow
    /// field's type: an int going into a `flt` field is not converted (a
    /// variable's value is), so that whether the value fits the field is
    /// checked once the program is optimized (`store::error`), as in
    /// Simple from chapter 13: `p.x = arg;` is `Cannot store int into
    /// field FltBot x`. `obj` is the struct as declared: the one a
    /// pointer's type names can be its dual, with fields `~int` and `~flt`,
    /// where the pointer is a phi in dead code.
    fn store_value(&mut self, value: NodeId, obj: TypeId, idx: usize) -> NodeId {
        let declared = self.graph.types.field_type(obj, idx);
        self.zs_mask(value, declared)
    }

    /// The current state of alias class `alias`: `$mem` itself until a
    /// store splits the class off.
    fn memory(&mut self, alias: u32) -> NodeId {
        scope::lookup(&mut self.graph, self.scope, &mem_name(alias))
            .expect("memory slices stay in scope")
    }

    /// `new S`: a New, then a Store of each field's first value: 0 for an
    /// int, 0.0 for a flt, null for a reference (even one declared not
    /// null).
    fn new_struct(&mut self, info: StructInfo) -> NodeId {
        let ptr = self.graph.types.ptr(info.ty, false);
        let ctrl = self.ctrl();
        let n = new_new(&mut self.graph, ptr, ctrl);
        let n = self.peephole(n);
        self.graph.keep(n);
        let count = self.graph.types.field_count(info.ty);
        let at = self.lexer.pos();
        for alias in info.first_alias..info.first_alias + count as u32 {
            let obj = info.ty;
            let idx = (alias - info.first_alias) as usize;
            let name = self.graph.types.field_name(obj, idx);
            let declared = self.graph.types.field_type(obj, idx);
            let mem = self.memory(alias);
            // A constant of its own for each field, as Simple makes it (value
            // numbering then finds the one made before).
            let init = self
                .graph
                .types
                .make_init(declared)
                .expect("int, flt or pointer");
            let init = node::new_constant(&mut self.graph, init);
            let init = self.peephole(init);
            let ctrl = self.ctrl();
            let field = StoreField {
                name: &name,
                alias,
                declared,
                init: true,
            };
            let st = store_new(&mut self.graph, field, at, ctrl, mem, n, init);
            let st = self.peephole(st);
            scope::update(&mut self.graph, self.scope, &mem_name(alias), st);
        }
        self.graph.unkeep(n)
    }

    /// `number | '(' expr ')' | 'true' | 'false' | id`
    fn parse_primary(&mut self) -> Parsed {
        let at = self.lexer.token_start();
        if self.lexer.is_number() {
            return self.parse_literal();
        }
        if self.lexer.matches("(") {
            let e = self.parse_expression()?;
            self.require(")")?;
            return Ok(e);
        }
        if self.lexer.matchx("true") {
            return Ok(self.constant(1));
        }
        if self.lexer.matchx("false") {
            return Ok(self.graph.zero());
        }
        if self.lexer.matchx("null") {
            let c = node::new_constant(&mut self.graph, Types::NULL);
            return Ok(self.peephole(c));
        }
        if self.lexer.matchx("new") {
            let at = self.lexer.token_start();
            let name = self.require_id()?;
            // Not a struct, or one not declared yet.
            let Some(info) = self.structs.get(&name).copied() else {
                return Err(Error::new(format!("Unknown struct type '{name}'"), at));
            };
            return Ok(self.new_struct(info));
        }
        let Some(name) = self.lexer.match_id() else {
            return Err(self.error_syntax("an identifier or expression"));
        };
        scope::lookup(&mut self.graph, self.scope, &name)
            .ok_or_else(|| Error::new(format!("Undefined name '{name}'"), at))
    }

    fn constant(&mut self, value: i64) -> NodeId {
        let ty = self.graph.types.int(value);
        let c = node::new_constant(&mut self.graph, ty);
        self.peephole(c)
    }

    /// An int literal, `[1-9][0-9]* | 0`, as a 64-bit signed integer, or a
    /// flt literal: digits, then `.` or `e`, then more digits, `.`s and
    /// `e`s, read as a 64-bit IEEE float (as Java's `Double.parseDouble`
    /// reads it: `1.5`, `2.`, `1e10`, `1.5e3`; there is no sign after the
    /// `e`, and a literal too large for a double is `Infinity`).
    fn parse_literal(&mut self) -> Parsed {
        let at = self.lexer.pos();
        let digits = self.lexer.number_string();
        if digits.contains(['.', 'e']) {
            let Ok(value) = digits.parse::<f64>() else {
                return Err(Error::new(
                    format!("Syntax error: malformed float literal: {digits}"),
                    at,
                ));
            };
            let ty = self.graph.types.flt(value);
            let c = node::new_constant(&mut self.graph, ty);
            return Ok(self.peephole(c));
        }
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

    /// An identifier that is not a keyword or a primitive type's name.
    fn require_id(&mut self) -> Result<String, Error> {
        let at = self.lexer.token_start();
        match self.lexer.match_id() {
            Some(id) if !KEYWORDS.contains(&id.as_str()) && prim_type(&id).is_none() => Ok(id),
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

/// The type a primitive type name stands for: `int`, `u8`, `f32`...
fn prim_type(name: &str) -> Option<TypeId> {
    PRIMITIVE_TYPES
        .iter()
        .find(|&&(n, _)| n == name)
        .map(|&(_, t)| t)
}

/// The scope name of the whole memory; no program can name it, as
/// identifiers cannot contain `$`.
const MEM: &str = "$mem";

/// The scope name of the memory slice of alias class `alias`: `$2`, `$3`...
fn mem_name(alias: u32) -> String {
    format!("${alias}")
}
