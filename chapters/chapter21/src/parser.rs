//! The parser: source text straight to a sea-of-nodes graph.
//!
//! A recursive-descent parser that builds and optimizes nodes as it reads;
//! there is no syntax tree. Each node is peepholed the moment it is made, so
//! `1+2` never exists as an Add: the parser receives the constant 3.
//!
//! ```text
//! program    : statement*                (the body of `{ int arg -> ... }`)
//! statement  : 'return' asgn ';' | decl_stmt
//!            | 'struct' struct_name '{' (type ['!'] id ';')* '}'
//!            | '{' statement* '}' | 'if' '(' asgn ')' statement ['else' statement]
//!            | 'while' '(' asgn ')' statement
//!            | 'for' '(' (';' | decl_stmt) [asgn] ';' [asgn] ')' statement
//!            | 'break' ';' | 'continue' ';' | '#showGraph' ';' | ';'
//! decl_stmt  : type ['!'] id ['=' asgn] (',' ['!'] id ['=' asgn])* ';' | asgn ';'
//! asgn       : id '=' asgn | expr
//! expr       : bitwise ['?' asgn [':' asgn]]
//! bitwise    : comparison (('&' | '|' | '^') comparison)*
//! comparison : shift (('==' | '!=' | '<' | '<=' | '>' | '>=') shift)*
//! shift      : additive (('<<' | '>>>' | '>>') additive)*
//! additive   : multiplicative (('+' | '-') multiplicative)*
//! multiplicative : unary (('*' | '/') unary)*
//! unary      : ('++' | '--') id | '-' unary | '!' unary | postfix
//! postfix    : primary ('.' id | '[' asgn ']' | '#' | '(' [asgn (',' asgn)*] ')')*
//!              ['=' asgn | ('+=' | '-=' | '*=' | '/=') asgn | '++' | '--']
//! primary    : number | 'true' | 'false' | 'null' | 'new' type ['[' asgn ']']
//!            | id [('+=' | '-=' | '*=' | '/=') asgn | '++' | '--'] | '(' asgn ')'
//!            | '{' (type id [','])* '->' statement* '}'
//! type       : (prim_type | 'var' | 'val' | struct_name) ('?' | '[]')* | fun_type
//! fun_type   : '{' type* ['->' type] '}' ['?']      ({int flt -> int}, {int})
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
//!
//! Chapter 15 brings arrays. A type may end in any run of `?` and `[]`
//! ([`Parser::parse_type`]); the first mention of an array type declares
//! it, a struct with a length `#` and a body `[]`, each its own alias
//! class. `new T[n]` makes one; `a[i]` loads or stores the element at
//! byte offset `(i<<scale)+base`, from the array's layout; `a#` loads the
//! length. A field's load or store carries its constant offset too. `new`
//! makes a multi-node New ([`Parser::new_struct`]) that takes the current
//! slice of each field's class and each field's initial value, and gives
//! back each slice with the new object's field set, and the pointer.
//!
//! Chapter 17 brings syntax sugar and mutability. Assignments are
//! expressions ([`Parser::parse_asgn`]); after a variable come `x++`,
//! `x--` and `x op= e`, before it `++x` and `--x`, after a field or
//! element `p.f++` and `a[i]--`; `c ? a : b` shares its arms' code with
//! `if` ([`Parser::parse_trinary`]); `for` shares `while`'s loop and
//! parses its step after the body by moving the lexer back to it. `var`
//! and `val` take their value's type; a `val`, or a reference declared
//! with a value and no `!`, is final, and a final reference is read-only
//! all the way down (a `ReadOnly` node). Every expression node goes
//! through [`Parser::peep`], which swaps in what the guards of the
//! enclosing tests know about it (see `node::scope`).
//!
//! Chapter 18 brings functions. The program is the body of the function
//! `main` ([`Parser::parse_function_body`]): a Fun node with a Parm for
//! the return program counter, all of memory, and each argument; every
//! `return` is recorded and, at the end of the body, merged into the
//! function's one Return (a Region and Phis when there are several).
//! Statements have values (a block's is its last statement's), and a
//! function falling off its end returns that value. A function literal
//! `{ int x -> ... }` is a constant of a new function pointer type; a call
//! `f(a, b)` is a Call taking control, all of memory (the split classes
//! merged back, [`Parser::memory_merge`]), the arguments and the pointer,
//! and its CallEnd gives back control, all of memory (a new default for
//! every class) and the result. A name used before it is declared is a
//! forward reference (an FRef), which the `val` that declares it resolves,
//! so functions may call themselves and each other. Functions are not
//! closures: a body may read an outer name only if it is a final constant.
//!
//! Recursion is guarded: the machine stack grows on demand and nesting past
//! [`MAX_NESTING`] levels is an error, not a crash.

use crate::dot;
use crate::error::Error;
use crate::graph::{Graph, NodeId};
use crate::lexer::{Lexer, OperAssign};
use crate::node::{
    self, cproj_new, if_new, load_new, loop_new, mem_merge_new, new_new, phi_new, proj_new,
    return_new, round_f32_new, scope, store_new, BoolOp, NodeKind, StoreField,
};
use crate::types::{IdxSet, TypeId, Types, PRIMITIVE_TYPES};
use rustc_hash::{FxHashMap, FxHashSet};

/// The deepest nesting of statements and expressions accepted.
pub const MAX_NESTING: usize = 50_000;

/// The words that cannot name a variable, a field or a struct, besides the
/// primitive type names.
const KEYWORDS: [&str; 11] = [
    "break", "continue", "else", "false", "if", "new", "null", "return", "struct", "true", "while",
];

/// A declared struct: its type, the alias class of its first field (the
/// others follow in order) and, for a struct (not an array), the Struct
/// node holding its fields' default values (chapter 16).
#[derive(Clone, Copy)]
struct StructInfo {
    ty: TypeId,
    first_alias: u32,
    defaults: Option<NodeId>,
}

/// The arms of a test: an `if`'s statements or a `?:`'s values.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Arms {
    Statements,
    Values,
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
    /// Chapter 18: the functions being parsed, innermost last.
    funs: Vec<FunctionBody>,
    /// Chapter 18: the scopes of the code around the function being
    /// parsed, innermost last (its own scope is `scope`).
    outer_scopes: Vec<NodeId>,
    /// Chapter 18: the names used before their declaration, each a
    /// forward reference waiting for its `val` (see `node/fref.rs`).
    frefs: FxHashMap<String, NodeId>,
    /// Chapter 18: where a `{` is known to start no function type.
    no_fun_type: FxHashSet<usize>,
}

/// Chapter 18: a function whose body is being parsed: its Fun, its return
/// program counter, the scope level its names start at, and every
/// `return` seen so far (control, value, memory), merged at the end.
struct FunctionBody {
    fun: NodeId,
    /// Where the function starts, for its Return's errors.
    at: u32,
    /// Its input of Stop, reserved when the body starts, so that Stop
    /// lists functions in the order they begin (`main` first).
    stop_slot: usize,
    rpc: NodeId,
    returns: Vec<(NodeId, NodeId, NodeId)>,
    /// The kinds of value its `return`s had as they were parsed, dead
    /// ones too (as Simple's Return gathers them, to name its error when
    /// its value has nothing in common).
    kinds: node::return_::Kinds,
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
    /// A parser for `src`. (Chapter 18: `arg` is `main`'s parameter, any
    /// integer; a program that wants a known value assigns it.)
    pub fn new(src: &'a str, disable_peephole: bool) -> Self {
        let mut graph = Graph::new();
        graph.disable_peephole = disable_peephole;
        let arg_type = Types::INT_BOT;
        let scope = scope::new(&mut graph);
        // Chapter 16: Start always hands in memory, whole, before `arg`.
        let args = graph.types.tuple(&[Types::CTRL, Types::MEM_TOP, arg_type]);
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
            funs: Vec::new(),
            outer_scopes: Vec::new(),
            frefs: FxHashMap::default(),
            no_fun_type: FxHashSet::default(),
        }
    }

    /// Parses the whole program and returns Stop. Chapter 18: the
    /// program is the body of the function `main`, `{ int arg -> ... }`.
    pub fn parse(&mut self) -> Parsed {
        self.x_scopes.push(self.scope);
        let (g, sc) = (&mut self.graph, self.scope);
        scope::push(g, sc);
        let start = g.start();
        // Control and memory slots, rebound by each function's body.
        let xctrl = g.xctrl();
        scope::define(g, sc, scope::CTRL, Types::CTRL, xctrl);
        let min = node::scope_min::new(g, None);
        let all = proj_new(g, start, 1, scope::MEM);
        let all = node::peephole(g, all);
        g.add_def(min, Some(all));
        scope::define(g, sc, scope::MEM, Types::MEM_BOT, min);
        let main = self.graph.types.main_function();
        let at = self.lexer.token_start();
        self.parse_function_body(main, &[(scope::ARG0.to_owned(), Types::INT_BOT)], at)?;
        scope::pop(&mut self.graph, self.scope);
        self.x_scopes.pop();
        // The default values are needed no more.
        let mut defaults: Vec<NodeId> = self.structs.values().filter_map(|i| i.defaults).collect();
        defaults.sort_unstable();
        for s in defaults {
            self.graph.unkeep(s);
            if self.graph.is_unused(s) {
                self.graph.kill(s);
            }
        }
        if !self.lexer.is_eof() {
            let at = self.lexer.token_start();
            let tok = self.lexer.any_next_token();
            return Err(Error::new(format!("Syntax error, unexpected: {tok}"), at));
        }
        // A name used and never declared.
        let mut undefined: Vec<(usize, String)> = self
            .frefs
            .iter()
            .map(|(name, &f)| match self.graph.kind(f) {
                NodeKind::FRef { at, .. } => (*at as usize, name.clone()),
                _ => (0, name.clone()),
            })
            .collect();
        undefined.sort();
        if let Some((at, name)) = undefined.into_iter().next() {
            return Err(Error::new(format!("Undefined name '{name}'"), at));
        }
        Ok(node::peephole(&mut self.graph, self.stop))
    }

    /// Chapter 18: the body of a function of type `sig` whose parameters
    /// are `params`, up to a `}` or the end: a Fun with a Parm for the
    /// return program counter, the memory and each parameter, the
    /// statements, and one Return merging every `return` (falling off the
    /// end returns the last statement's value). Returns the Return.
    fn parse_function_body(
        &mut self,
        sig: TypeId,
        params: &[(String, TypeId)],
        at: usize,
    ) -> Parsed {
        // The body gets a scope of its own: it sees only its own names, and
        // the enclosing ones (final constants, functions) through
        // `outer_scopes`, so an `if` in a function copies no names of the
        // functions around it (a program of many functions stays linear).
        let (outer_break, outer_continue) = (self.break_scope.take(), self.continue_scope.take());
        let outer = self.scope;
        let g = &mut self.graph;
        g.keep(outer);
        let fun = node::fun::new(g, sig);
        let fun = node::peephole(g, fun);
        if let Some(key) = g.types.single_fidx(sig) {
            g.functions.insert(key, fun);
        }
        let rpc = node::parm::new(g, "$rpc", 0, Types::RPC_BOT, fun);
        let rpc = node::peephole(g, rpc);
        g.keep(rpc);
        let sc = scope::new(g);
        scope::push(g, sc);
        scope::define(g, sc, scope::CTRL, Types::CTRL, fun);
        let mem = node::parm::new(g, scope::MEM, 1, Types::MEM_BOT, fun);
        let mem = node::peephole(g, mem);
        let min = node::scope_min::new(g, Some(mem));
        scope::define(g, sc, scope::MEM, Types::MEM_BOT, min);
        scope::push_function(g, sc);
        self.outer_scopes.push(outer);
        self.scope = sc;
        self.x_scopes.push(sc);
        for (i, (name, t)) in params.iter().enumerate() {
            let parm = node::parm::new(&mut self.graph, name, i as u32 + 2, *t, fun);
            let parm = self.peephole(parm);
            if !scope::define(&mut self.graph, sc, name, *t, parm) {
                return Err(Error::new(format!("Redefining name '{name}'"), at));
            }
        }
        let stop_slot = self.graph.n_ins(self.stop);
        self.graph.add_def(self.stop, None);
        self.funs.push(FunctionBody {
            fun,
            at: node::source_offset(at),
            stop_slot,
            rpc,
            returns: Vec::new(),
            kinds: node::return_::Kinds::default(),
        });
        let last = self.statements()?;
        if self.graph.ty(self.ctrl()) == Types::CTRL {
            self.add_return(last);
        } else {
            self.discard(last);
        }
        scope::pop(&mut self.graph, self.scope);
        let body = self.funs.pop().expect("pushed above");
        let ret = self.finish_function(body);
        // Back to the enclosing code, whose scope the body never touched.
        // The body's control and memory go as Simple's single scope lets
        // them go (control first), so the optimizer meets the same work
        // in the same order.
        let sc = self.scope;
        scope::drop_guards(&mut self.graph, sc);
        self.graph.set_def(sc, 0, None);
        self.graph.set_def(sc, 1, None);
        self.graph.discard(sc);
        self.x_scopes.pop();
        self.outer_scopes.pop();
        self.scope = outer;
        self.graph.unkeep(outer);
        self.break_scope = outer_break;
        self.continue_scope = outer_continue;
        Ok(ret)
    }

    /// Merges a function's returns into its one Return, added to Stop.
    fn finish_function(&mut self, body: FunctionBody) -> NodeId {
        let FunctionBody {
            fun,
            at,
            rpc,
            returns,
            stop_slot,
            kinds,
        } = body;
        let g = &mut self.graph;
        let (ctrl, expr, mem) = match returns.len() {
            0 => {
                let top = node::new_constant(g, Types::TOP);
                let top = node::peephole(g, top);
                (g.xctrl(), top, top)
            }
            1 => returns[0],
            _ => {
                let ctrls: Vec<NodeId> = returns.iter().map(|r| r.0).collect();
                let r = node::region_new(g, &ctrls);
                // Folding a phi must not take the region down with it.
                g.keep(r);
                let values: Vec<NodeId> = returns.iter().map(|r| r.1).collect();
                let mems: Vec<NodeId> = returns.iter().map(|r| r.2).collect();
                let m = phi_new(g, scope::MEM, Types::MEM_BOT, r, &mems);
                let v = phi_new(g, "", Types::BOTTOM, r, &values);
                let m = node::peephole(g, m);
                g.keep(m);
                let v = node::peephole(g, v);
                g.keep(v);
                g.unkeep(r);
                let r = node::peephole(g, r);
                g.unkeep(m);
                g.unkeep(v);
                (r, v, m)
            }
        };
        for &(c, v, m) in &returns {
            g.unkeep(c);
            g.unkeep(v);
            g.unkeep(m);
        }
        let ret = return_new(g, ctrl, mem, expr, rpc);
        g.unkeep(rpc);
        g.fun_of_return.insert(ret, fun);
        g.operator_at.insert(ret, at);
        // Chapter 19: the kinds as parsed name the error, but only a
        // value still `Bottom` after optimization is one (Simple's chapter
        // 19 Return checks its value's type, no longer the meet of its
        // returns as parsed).
        g.mixed_returns.insert(ret, kinds.message());
        node::fun::set_ret(g, fun, ret);
        let ret = node::peephole(g, ret);
        if g.disable_peephole {
            node::return_::refine_fun_type(g, ret, fun);
        }
        g.set_def(self.stop, stop_slot, Some(ret));
        ret
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

    /// Peepholes an expression node the parser built and, if it turns out
    /// to be a value a guard knows more about, gives the guard's cast
    /// (chapter 17).
    fn peep(&mut self, n: NodeId) -> NodeId {
        let n = self.peephole(n);
        scope::upcast_guard(&self.graph, self.scope, n)
    }

    /// `statement*` up to a `}` or the end; the braces belong to the caller.
    /// A constructor's block (`in_con`) may set final fields.
    fn parse_block(&mut self, in_con: bool) -> Parsed {
        if in_con {
            scope::push_constructor(&mut self.graph, self.scope);
        } else {
            scope::push(&mut self.graph, self.scope);
        }
        let last = self.statements()?;
        // The block's value outlives its names.
        self.graph.keep(last);
        scope::pop(&mut self.graph, self.scope);
        Ok(self.graph.unkeep(last))
    }

    /// `statement*` up to a `}` or the end. Chapter 18: a block has a value,
    /// its last statement's (0 if it has none), which a function falling
    /// off its end returns. The values of the statements before are
    /// dropped.
    fn statements(&mut self) -> Parsed {
        let zero = self.graph.zero();
        let mut last = zero;
        while !self.lexer.peek_is('}') && !self.lexer.is_eof() {
            let value = self.parse_statement()?;
            if let Some(v) = value.filter(|&v| v != last) {
                if v != zero {
                    self.graph.keep(v);
                }
                self.forget(last);
                last = v;
            }
        }
        if last != zero {
            self.graph.unkeep(last);
        }
        Ok(last)
    }

    /// A statement's value that no later statement wants: unkept, and
    /// dropped if nothing uses it.
    fn forget(&mut self, value: NodeId) {
        if value == self.graph.zero() {
            return;
        }
        self.graph.unkeep(value);
        self.discard(value);
    }

    /// Kills a value nothing uses (an expression statement's): dead code
    /// would otherwise hang under control the schedule never reaches.
    fn discard(&mut self, value: NodeId) {
        if value != self.graph.zero() && self.graph.is_unused(value) && !self.graph.is_dead(value) {
            self.graph.kill(value);
        }
    }

    /// A statement; its value, if it has one (chapter 18).
    fn parse_statement(&mut self) -> Result<Option<NodeId>, Error> {
        self.nested(|p| {
            let at = p.lexer.token_start();
            let zero = Some(p.graph.zero());
            if p.lexer.matchx("return") {
                p.parse_return().map(Some)
            } else if p.lexer.matchx("for") {
                p.parse_for().map(Some)
            } else if p.lexer.peek_is('{') && !p.is_type_fun() {
                p.lexer.matches("{");
                let v = p.parse_block(false)?;
                p.require("}")?;
                Ok(Some(v))
            } else if p.lexer.matchx("if") {
                p.parse_if(at).map(Some)
            } else if p.lexer.matchx("while") {
                p.parse_while().map(Some)
            } else if p.lexer.matchx("break") {
                p.parse_break(at).map(|_| zero)
            } else if p.lexer.matchx("continue") {
                p.parse_continue(at).map(|_| zero)
            } else if p.lexer.matchx("struct") {
                p.parse_struct().map(|_| zero)
            } else if p.lexer.matchx("#showGraph") {
                p.show_graph();
                p.require(";").map(|_| None)
            } else if p.lexer.matchx(";") {
                Ok(zero) // the empty statement
            } else {
                p.parse_declaration_statement().map(Some)
            }
        })
    }

    /// `if ( expr ) statement [else statement]`, `if` already read at `at`.
    fn parse_if(&mut self, at: usize) -> Parsed {
        self.require("(")?;
        let pred = self.parse_asgn()?;
        self.require(")")?;
        self.parse_trinary(pred, Arms::Statements, at)
    }

    /// The two arms of a test of `pred`: the statements of an `if`, or
    /// the values of `pred ? a : b` (chapter 17). Each arm gets its own copy
    /// of the scope and the guards of its side of the test (on the true
    /// side `pred` is not zero, a pointer not null; on the false side it
    /// is zero, or null), with or without a second arm: after
    /// `if (!p) return 0;` the code that follows knows `p` is not null.
    /// The scopes merge at a Region; `?:` makes a Phi of the two values.
    /// Without `: b` the false value is the zero of `a`'s type (0, 0.0 or
    /// null). Returns the Phi of a `?:`.
    fn parse_trinary(&mut self, pred: NodeId, arms: Arms, at: usize) -> Result<NodeId, Error> {
        // The predicate stays alive for the guards of both arms. The If is
        // kept alive across the peephole of its True arm, which may replace
        // that arm by the If's own control; each arm is kept until it is in
        // use, so that optimizing one cannot kill the other.
        self.graph.keep(pred);
        let (if_true, if_false) = self.branch(pred);

        let ndefs = self.graph.n_ins(self.scope);
        let mut f_scope = scope::dup(&mut self.graph, self.scope, false);
        self.x_scopes.push(f_scope);

        self.set_ctrl(if_true);
        self.graph.unkeep(if_true);
        scope::add_guards(&mut self.graph, self.scope, if_true, Some(pred), false);
        // Chapter 18: a statement has a value, and so has an `if`: the Phi
        // of its arms' values.
        let zero = self.graph.zero();
        let lhs = match arms {
            Arms::Statements => {
                let v = self.parse_statement()?.unwrap_or(zero);
                Some(self.graph.keep(v))
            }
            Arms::Values => {
                let v = self.parse_asgn()?;
                Some(self.graph.keep(v))
            }
        };
        scope::remove_guards(&mut self.graph, self.scope, if_true);
        let t_scope = self.scope;

        self.scope = f_scope;
        self.set_ctrl(if_false);
        self.graph.unkeep(if_false);
        scope::add_guards(&mut self.graph, self.scope, if_false, Some(pred), true);
        let has_rhs = match arms {
            Arms::Statements => self.lexer.matchx("else"),
            Arms::Values => self.lexer.matches(":"),
        };
        let rhs = match (arms, has_rhs, lhs) {
            (Arms::Statements, true, _) => Some(self.parse_statement()?.unwrap_or(zero)),
            (Arms::Values, true, _) => Some(self.parse_asgn()?),
            (_, false, Some(lhs)) => {
                let t = self.graph.ty(lhs);
                let zero = self.graph.types.make_zero(t).unwrap_or(Types::INT_ZERO);
                let c = node::new_constant(&mut self.graph, zero);
                Some(self.peephole(c))
            }
            _ => None,
        };
        // The guards let go of the nodes they pin; the value may be one of
        // them (a cast folded to a constant the value shares), and must
        // outlive them.
        if let Some(rhs) = rhs {
            self.graph.keep(rhs);
        }
        scope::remove_guards(&mut self.graph, self.scope, if_false);
        if let Some(rhs) = rhs {
            self.graph.unkeep(rhs);
        }
        if has_rhs {
            f_scope = self.scope;
        }
        self.graph.unkeep(pred);

        for arm in [t_scope, f_scope] {
            if self.graph.n_ins(arm) != ndefs {
                let name = scope::reverse_names(&self.graph, arm)[ndefs].clone();
                return Err(Error::new(
                    format!("Cannot define a '{name}' on one arm of an if"),
                    at,
                ));
            }
        }

        // An int meeting a float becomes a float, on either side.
        let values = match (lhs, rhs) {
            (Some(lhs), Some(rhs)) => {
                let lt = self.graph.ty(lhs);
                let rhs = self.widen_to(rhs, lt);
                self.graph.keep(rhs);
                self.graph.unkeep(lhs);
                let rt = self.graph.ty(rhs);
                let lhs = self.widen_to(lhs, rt);
                self.graph.keep(lhs);
                // Both stay kept through the merge, whose phis may
                // rewrite the nodes they take.
                Some((lhs, rhs))
            }
            _ => None,
        };

        self.scope = t_scope;
        self.x_scopes.pop();
        let r = scope::merge_unoptimized(&mut self.graph, t_scope, f_scope);
        self.set_ctrl(r);
        let ret = match values {
            Some((lhs, rhs)) => {
                let (lt, rt) = (self.graph.ty(lhs), self.graph.ty(rhs));
                let declared = self.graph.types.meet(lt, rt);
                self.graph.unkeep(lhs);
                self.graph.unkeep(rhs);
                let phi = phi_new(&mut self.graph, "", declared, r, &[lhs, rhs]);
                let v = self.peep(phi);
                // Chapter 18: a value of no type (`arg ? 7 : ptr`) is an
                // error at once, as Simple reports it while parsing (an
                // `if`'s value is not checked, nor what the Phi folded to).
                let checked = matches!(arms, Arms::Values)
                    && matches!(self.graph.kind(v), NodeKind::Phi { .. });
                if let Some(mut e) = checked.then(|| node::error(&mut self.graph, v)).flatten() {
                    if e.offset == usize::MAX {
                        e.offset = self.lexer.token_start();
                    }
                    return Err(e);
                }
                v
            }
            None => r,
        };
        // A value computed from the Phi keeps it alive across the region's
        // peephole.
        self.graph.keep(ret);
        let r = self.peephole(r);
        self.set_ctrl(r);
        Ok(self.graph.unkeep(ret))
    }

    /// `while ( expr ) statement`, `while` already read.
    fn parse_while(&mut self) -> Parsed {
        self.require("(")?;
        self.parse_looping(false)
    }

    /// `for ( init ; test ; next ) statement`, `for` already read (chapter
    /// 17). The init declares its variables in a scope of their own, so
    /// they are gone after the loop; an empty test is true. The `next`
    /// expression is skipped over when met and parsed after the body, at
    /// the end of each trip.
    fn parse_for(&mut self) -> Parsed {
        self.require("(")?;
        scope::push(&mut self.graph, self.scope);
        if !self.lexer.matches(";") {
            self.parse_declaration_statement()?;
        }
        let value = self.parse_looping(true)?;
        self.graph.keep(value);
        scope::pop(&mut self.graph, self.scope);
        Ok(self.graph.unkeep(value))
    }

    /// The loop of a `while` (test, then `)`) or a `for` (test, `;`, next,
    /// `)`), the opening `(` already read.
    ///
    /// The loop head is a Loop node; the body's scope binds every variable
    /// lazily to the head scope, which makes a Phi only for the variables
    /// the loop uses. The body runs on the True arm, with the test's guards;
    /// the False arm starts the break scope, where every `break` also lands
    /// and which becomes the scope after the loop: its guards stay (after
    /// `while (arg) ...`, `arg` is 0). `continue`s merge into a continue
    /// scope, which joins the end of the body to form the back edge.
    fn parse_looping(&mut self, is_for: bool) -> Parsed {
        let saved_continue = self.continue_scope;
        let saved_break = self.break_scope;
        let entry = self.ctrl();
        let head_ctrl = loop_new(&mut self.graph, entry);
        let head_ctrl = self.peephole(head_ctrl);
        self.set_ctrl(head_ctrl);
        // The head scope keeps the phis; the body works on a lazy copy.
        let head = self.graph.keep(self.scope);
        self.scope = scope::dup(&mut self.graph, head, true);
        self.x_scopes.push(self.scope);

        let pred = if self.lexer.peek_is(';') {
            self.constant(1)
        } else {
            self.parse_asgn()?
        };
        self.require(if is_for { ";" } else { ")" })?;
        self.graph.keep(pred);
        let (if_true, if_false) = self.branch(pred);
        // A `for`'s next expression comes after the body.
        let next = if is_for {
            let start = self.lexer.pos();
            self.skip_asgn()?;
            let end = self.lexer.pos();
            self.require(")")?;
            Some((start, end))
        } else {
            None
        };

        // Leaving the loop: the False arm starts the break scope.
        self.set_ctrl(if_false);
        self.graph.unkeep(if_false);
        let break_scope = scope::dup(&mut self.graph, self.scope, false);
        self.x_scopes.push(break_scope);
        scope::add_guards(&mut self.graph, break_scope, if_false, Some(pred), true);
        self.break_scope = Some(break_scope);
        self.continue_scope = None;

        self.set_ctrl(if_true);
        self.graph.unkeep(if_true);
        scope::add_guards(&mut self.graph, self.scope, if_true, Some(pred), false);
        self.graph.unkeep(pred);
        // Chapter 19: a loop's value is 0, whatever its body's (chapter 18
        // took the body's, as seen after the loop).
        if let Some(body) = self.parse_statement()? {
            self.discard(body);
        }
        scope::remove_guards(&mut self.graph, self.scope, if_true);

        // The end of the body and every continue form the back edge.
        if let Some(continues) = self.continue_scope {
            let merged = self.jump_to(Some(continues));
            scope::kill(&mut self.graph, self.scope);
            self.scope = merged;
        }
        if let Some((start, end)) = next {
            let after = self.lexer.pos();
            self.lexer.set_pos(start);
            if !self.lexer.peek_is(')') {
                let value = self.parse_asgn()?;
                self.check_dropped(value)?;
                self.discard(value);
            }
            if self.lexer.token_start() != end {
                return Err(self.error_syntax("Unexpected code after expression"));
            }
            self.lexer.set_pos(after);
        }

        let exit = self.break_scope.expect("set above, restored below");
        scope::end_loop(&mut self.graph, head, self.scope, exit);
        self.graph.unkeep(head);
        scope::kill(&mut self.graph, head);
        self.x_scopes.pop();
        self.x_scopes.pop();
        self.continue_scope = saved_continue;
        self.break_scope = saved_break;
        // The scope of the enclosing code is now the exit.
        if let Some(top) = self.x_scopes.last_mut() {
            *top = exit;
        }
        self.scope = exit;
        Ok(self.graph.zero())
    }

    /// Skips a `for` loop's next expression, up to the `)` that closes the
    /// loop's header (not consumed).
    fn skip_asgn(&mut self) -> Result<(), Error> {
        let mut parens = 0usize;
        loop {
            let at = self.lexer.token_start();
            match self.lexer.next_x_char() {
                None => return Err(self.error_syntax(")")),
                Some(')') if parens == 0 => {
                    self.lexer.set_pos(at);
                    return Ok(());
                }
                Some(')') => parens -= 1,
                Some('(') => parens += 1,
                Some(_) => {}
            }
        }
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

    /// `break ;`, `break` already read at `at`. The loop exit's guards
    /// hold at the break only if they hold at every break, so the break
    /// scope drops them; a bare marker stands for the merged exit.
    fn parse_break(&mut self, at: usize) -> Result<(), Error> {
        self.check_loop_active(at)?;
        let target = self.break_scope.expect("checked above");
        let ctrl = scope::ctrl(&self.graph, target);
        scope::remove_guards(&mut self.graph, target, ctrl);
        let merged = self.jump_to(Some(target));
        self.break_scope = Some(merged);
        let ctrl = scope::ctrl(&self.graph, merged);
        scope::add_guards(&mut self.graph, merged, ctrl, None, false);
        self.require(";")
    }

    /// `continue ;`, `continue` already read at `at`.
    fn parse_continue(&mut self, at: usize) -> Result<(), Error> {
        self.check_loop_active(at)?;
        let target = self.continue_scope;
        self.continue_scope = Some(self.jump_to(target));
        self.require(";")
    }

    /// `return expr ;`: a return from the function being parsed; control
    /// after it is dead. Its value is the statement's value.
    fn parse_return(&mut self) -> Parsed {
        let expr = self.parse_asgn()?;
        self.require(";")?;
        self.add_return(expr);
        let dead = self.graph.xctrl();
        self.set_ctrl(dead);
        Ok(expr)
    }

    /// Records a return of `expr` at the current control, with the current
    /// state of all of memory, for the function's Return.
    fn add_return(&mut self, expr: NodeId) {
        let memory = self.memory_merge();
        let ctrl = self.ctrl();
        let g = &mut self.graph;
        g.keep(ctrl);
        g.keep(expr);
        g.keep(memory);
        let body = self.funs.last_mut().expect("inside a function");
        body.returns.push((ctrl, expr, memory));
        // Reachable or not, the value's kind names the error.
        let t = g.ty(expr);
        body.kinds.add(&g.types, t);
    }

    /// The current state of all of memory: the classes that stores split
    /// off, merged over the default memory (or just the default memory if
    /// none was). Inside a loop a class's state may still be lazy: it is
    /// made real here.
    fn memory_merge(&mut self) -> NodeId {
        let min = scope::mem(&self.graph, self.scope);
        let all = node::scope_min::mem(&mut self.graph, min, 1, None);
        let mut slices = Vec::new();
        for alias in 2..self.graph.n_ins(min) {
            if self.graph.input(min, alias).is_some() {
                let state = node::scope_min::mem(&mut self.graph, min, alias, None);
                if state != all {
                    slices.push((alias as u32, state));
                }
            }
        }
        if slices.is_empty() {
            return all;
        }
        let merge = mem_merge_new(&mut self.graph, all, &slices);
        self.peephole(merge)
    }

    /// `#showGraph;` records the graph as it stands.
    fn show_graph(&mut self) {
        let text = dot::generate(&self.graph, self.src, &self.x_scopes);
        self.show_graphs.push(text);
    }

    /// A statement that is not a keyword's: a declaration of one or more
    /// names of one type (`int x, y = 3;`, `var s = new S;`), or else an
    /// expression evaluated for its effect (`x = 1;`, `v.x++;`). An
    /// expression's value is dropped; a value nobody uses (`p.f;`) is dead
    /// code, and would hang under control the schedule never reaches.
    fn parse_declaration_statement(&mut self) -> Parsed {
        let Some(t) = self.parse_type()? else {
            let value = self.parse_asgn()?;
            self.require(";")?;
            self.check_dropped(value)?;
            return Ok(value);
        };
        let mut last = self.parse_declarator(t)?;
        while self.lexer.matches(",") {
            last = self.parse_declarator(t)?;
        }
        self.require(";")?;
        Ok(last)
    }

    /// Drops the value of an expression statement. Nothing uses it, so it
    /// dies, but arithmetic on a non-number in it (`-null-5;`) is still
    /// the program's error, as in Simple, whose graph keeps such nodes.
    /// In dead code nothing is checked (as from chapter 16): a value there
    /// may be `Top` (a merge of no live path), which arithmetic without
    /// peepholes would not fold.
    fn check_dropped(&mut self, value: NodeId) -> Result<(), Error> {
        if !self.graph.is_unused(value) {
            return Ok(());
        }
        if self.graph.ty(self.ctrl()) == Types::XCTRL {
            return Ok(());
        }
        let mut work = vec![value];
        let mut first: Option<Error> = None;
        while let Some(n) = work.pop() {
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
                // A call's result is `Bot` until its function is known
                // (chapter 18): only the optimized graph can tell.
                let unknown = (1..=2).any(|i| {
                    self.graph
                        .input(n, i)
                        .is_some_and(|x| self.graph.ty(x) == Types::BOTTOM)
                });
                if unknown {
                    continue;
                }
                if let Some(e) = node::error(&mut self.graph, n) {
                    if first.as_ref().is_none_or(|f| e.offset < f.offset) {
                        first = Some(e);
                    }
                }
            }
            // Only what dies with the value: inputs used nowhere else.
            for i in 1..self.graph.n_ins(n) {
                if let Some(x) = self.graph.input(n, i) {
                    if self.graph.outputs(x).len() == 1 && !self.graph.is_kept(x) {
                        work.push(x);
                    }
                }
            }
        }
        first.map_or(Ok(()), Err)
    }

    /// `['!'] name ['=' expr]` of a declaration of type `t` (chapter 17).
    ///
    /// `var` and `val` (the marker types [`Types::BOTTOM`] and
    /// [`Types::TOP`]) take the type of the value, widened (`var x = 3`
    /// is an `int`; a pointer may be null). A `val` is final; so is a
    /// reference declared with a value (`S s = new S;`) unless `!` marks it
    /// mutable. Numbers and names declared without a value stay mutable.
    /// Without a value a name starts at its type's zero; a pointer that
    /// cannot be null starts unset (`Top`) and must be assigned.
    fn parse_declarator(&mut self, t: TypeId) -> Parsed {
        let infer = t == Types::TOP || t == Types::BOTTOM;
        let bang = self.lexer.matches("!");
        let at = self.lexer.token_start();
        let name = self.require_id()?;
        let mut t = t;
        let mut fin = false;
        let expr = if self.lexer.matches("=") {
            let e = self.parse_asgn()?;
            let et = self.graph.ty(e);
            // Chapter 18: a reference or a function pointer given a value
            // (not null) and no `!` is final.
            let is_ref = self.graph.types.nil_of(t).is_some();
            fin = t == Types::TOP || (t != Types::BOTTOM && !bang && is_ref && et != Types::NULL);
            // Chapter 18: `null` is a constant of no kind of pointer, so no
            // type can be inferred from it.
            if infer && et == Types::NULL {
                let here = self.lexer.token_start();
                return Err(Error::new("Expected a not-null/non-zero expression", here));
            }
            if infer {
                // A `val` keeps the value's very type (a constant stays
                // one, which a function may then read); a `var` widens it.
                t = if fin { et } else { self.graph.types.glb(et) };
            }
            e
        } else {
            // A struct's body or a constructor may leave a `var` or `val`
            // to be set later (in a constructor): its value is the marker
            // type itself, `Bottom` or `Top`.
            // Chapter 18: so must a reference that cannot be null.
            let types = &self.graph.types;
            let not_null = types.not_null(t);
            if (infer || not_null) && !scope::in_constructor(&self.graph, self.scope) {
                return Err(self.error_syntax("=expression"));
            }
            let types = &self.graph.types;
            let init = if infer {
                t
            } else if not_null {
                Types::TOP
            } else {
                types.make_init(t).expect("a variable type has a zero")
            };
            let c = node::new_constant(&mut self.graph, init);
            self.peephole(c)
        };
        let expr = self.lift_expr(expr, t, fin, at)?;
        if fin {
            t = self.graph.types.make_ro(t);
        }
        // Chapter 18: a `val` of a constant (a function) is what a name used
        // before it (a forward reference) stands for.
        if let Some(fref) = self.frefs.remove(&name) {
            if !fin || !self.graph.types.is_constant(self.graph.ty(expr)) {
                return Err(Error::new(format!("Undefined name '{name}'"), at));
            }
            self.graph.add_def(fref, Some(expr));
            self.graph.unkeep(fref);
            self.graph.work.push(fref);
        }
        // The function a `val` or `var` names is named after it.
        let et = self.graph.ty(expr);
        if self.graph.types.is_fun_ptr(et) && self.graph.types.is_constant(et) {
            self.graph.types.set_fun_name(et, &name);
        }
        if !scope::define_var(&mut self.graph, self.scope, &name, t, fin, expr) {
            return Err(Error::new(format!("Redefining name '{name}'"), at));
        }
        Ok(expr)
    }

    /// `name = asgn | expression`: an assignment, which is an expression
    /// (chapter 17: `i = j = 1`, `while ((x = x-1))`). Its value is the
    /// value assigned, before any narrowing to the variable's type.
    fn parse_asgn(&mut self) -> Parsed {
        let old = self.lexer.pos();
        let at = self.lexer.token_start();
        let name = self.lexer.match_id();
        let Some(name) = name.filter(|n| !is_keyword(n) && self.lexer.matches_assign()) else {
            self.lexer.set_pos(old);
            return self.parse_expression();
        };
        let expr = self.parse_asgn()?;
        let declared = scope::declared_type(&self.graph, self.scope, &name);
        let Some(declared) = declared else {
            return Err(Error::new(format!("Undefined name '{name}'"), at));
        };
        self.check_not_final(&name, at)?;
        let fin = scope::is_final(&self.graph, self.scope, &name);
        self.graph.keep(expr);
        let lifted = self.lift_expr(expr, declared, fin, at);
        self.graph.unkeep(expr);
        let lifted = lifted?;
        scope::update(&mut self.graph, self.scope, &name, lifted);
        Ok(expr)
    }

    /// A final variable that holds a value cannot be assigned again.
    fn check_not_final(&mut self, name: &str, at: usize) -> Result<(), Error> {
        // In a struct's body or a constructor, final fields are being set.
        // Chapter 18: only the names of the constructor's own scope (its
        // struct's fields), not final names from outside it.
        let innermost = scope::levels(&self.graph, self.scope).len().checked_sub(1);
        let own = scope::level_of(&self.graph, self.scope, name) == innermost;
        if !scope::is_final(&self.graph, self.scope, name)
            || (scope::in_constructor(&self.graph, self.scope) && own)
        {
            return Ok(());
        }
        let current = scope::lookup(&mut self.graph, self.scope, name);
        if current.is_some_and(|v| self.graph.ty(v) == Types::TOP) {
            return Ok(());
        }
        Err(Error::new(format!("Cannot reassign final '{name}'"), at))
    }

    /// A value given to a variable or field of type `t`: a reference
    /// given to a final one is made read-only (chapter 17: finality is
    /// deep), an int becomes a float for a `flt`, a wide value is cut down
    /// to a narrow type, and then it must fit `t`.
    fn lift_expr(&mut self, expr: NodeId, t: TypeId, fin: bool, at: usize) -> Parsed {
        let (expr, t) = if fin && self.graph.types.is_ptr(t) {
            let ro = node::read_only_new(&mut self.graph, expr);
            (self.peep(ro), self.graph.types.make_ro(t))
        } else {
            (expr, t)
        };
        // Chapter 18: a value not known yet (a forward reference, or what
        // a call of one returns) is taken to be of the declared type.
        if self.graph.ty(expr) == Types::BOTTOM {
            if t == Types::BOTTOM || t == Types::TOP {
                return Ok(expr);
            }
            let cast = node::cast::new_unpinned(&mut self.graph, t, expr);
            self.graph.operator_at.insert(cast, node::source_offset(at));
            return Ok(self.peephole(cast));
        }
        let expr = self.widen_to(expr, t);
        // A constant type (a `val` field's) is no narrow type to cut to.
        let expr = if self.graph.types.is_constant(t) {
            expr
        } else {
            self.zs_mask(expr, t)
        };
        self.check_type(expr, t, at)?;
        Ok(expr)
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

    /// A type, if one is next: a name (`int`, `flt`, a struct name making
    /// a pointer type), then any of `?` (a pointer may be null) and `[]`
    /// (an array of what came before), read left to right: `S?[]?` is a
    /// nullable array of nullable `S` pointers. A name that is no known
    /// struct, but is followed (after its suffixes) by another name (`Node
    /// next`), is a struct declared later: a forward reference. The
    /// following name is left for the caller. If no type is next, nothing
    /// is consumed.
    fn parse_type(&mut self) -> Result<Option<TypeId>, Error> {
        if self.lexer.peek_is('{') {
            return self.type_fun_ptr();
        }
        let start = self.lexer.token_start();
        let Some(name) = self.lexer.match_id() else {
            return Ok(None);
        };
        let known = if let Some(t) = prim_type(&name) {
            Some(t)
        } else if name == "var" {
            // Chapter 17: `var` and `val` stand for the type of the value.
            Some(Types::BOTTOM)
        } else if name == "val" {
            Some(Types::TOP)
        } else if let Some(info) = self.structs.get(&name).copied() {
            Some(self.graph.types.ptr(info.ty, false))
        } else {
            None
        };
        // A keyword is no struct name (Simple's parser does not check, so
        // `new S;` would declare `S` of a struct type named `new`).
        if known.is_none() && (KEYWORDS.contains(&name.as_str()) || !self.forward_type(&name)) {
            self.lexer.set_pos(start);
            return Ok(None);
        }
        let mut t = match known {
            Some(t) => t,
            None => {
                let obj = self.graph.types.struct_forward(&name);
                self.graph.types.ptr(obj, false)
            }
        };
        loop {
            let at = self.lexer.token_start();
            if self.lexer.matches("?") {
                let types = &mut self.graph.types;
                if !types.is_ptr(t) {
                    let shown = types.to_string(t);
                    return Err(Error::new(format!("Type {shown} cannot be null"), at));
                }
                if types.is_nullable(t) {
                    let shown = types.to_string(t);
                    return Err(Error::new(format!("Type {shown} already allows null"), at));
                }
                let obj = types.pointee(t).expect("a pointer");
                t = types.ptr(obj, true);
            } else if self.lexer.matches("[]") {
                let info = self.array_type(t, at)?;
                t = self.graph.types.ptr(info.ty, false);
            } else {
                return Ok(Some(t));
            }
        }
    }

    /// Name `name`, no known type, is a struct declared later if another
    /// name follows it (after any `?` and `[]`): `Node? next`, `Tree?[] kids`.
    /// The cursor is left where it was.
    fn forward_type(&mut self, name: &str) -> bool {
        if self.forward.contains(name) {
            return true;
        }
        let after = self.lexer.pos();
        while self.lexer.matches("?") || self.lexer.matches("[]") {}
        // Chapter 18: only in a declaration without a value, `T x;` or
        // `T !x,` (so `x ? y : z` stays an expression even when `y` is a
        // name); chapter 19: or a function's parameter, `{ T x -> ...}`.
        self.lexer.matches("!");
        let next_is_name = self.lexer.match_id().is_some()
            && (self.lexer.peek_is(',') || self.lexer.peek_is(';') || self.lexer.matches("->"));
        self.lexer.set_pos(after);
        if next_is_name {
            self.forward.insert(name.into());
        }
        next_is_name
    }

    /// The array type with elements of type `elem`, first mentioned at
    /// `at`. Like a struct it is declared once, by its name (`int[]`,
    /// `*S?[]`): its two fields, the length `#` and the body `[]`, become
    /// two alias classes whose memory slices are bound in the outermost
    /// scope, as a struct's are. So the first mention must be there (as a
    /// struct declaration must).
    fn array_type(&mut self, elem: TypeId, at: usize) -> Result<StructInfo, Error> {
        let types = &mut self.graph.types;
        let name = format!("[{}]", types.str(elem));
        if let Some(info) = self.structs.get(&name) {
            return Ok(*info);
        }
        let Some(ty) = types.array(elem) else {
            return Err(Error::new(
                "Arrays of reference types must always be nullable",
                at,
            ));
        };
        let info = StructInfo {
            ty,
            first_alias: self.next_alias,
            defaults: None,
        };
        self.next_alias += 2;
        self.structs.insert(name, info);
        Ok(info)
    }

    /// The parser is in no `if` and no loop (it may be in a block, a
    /// struct's body or a constructor).
    fn at_top_level(&self) -> bool {
        // Chapter 18: the program's scope and `main`'s own.
        self.x_scopes.len() <= 2
    }

    /// `struct S { statement* };`, `struct` already read. The body is a
    /// block run once, here, in the program's control flow; each name it
    /// declares at its own level (not in a nested block) is a field, of its
    /// declared type and finality, in order, and the value the name holds
    /// at the closing `}` is the field's default value, kept in a Struct
    /// node for `new`. Each field becomes an alias class, bound in the
    /// scope as `$N` to the whole memory `$mem` (made from Start by the
    /// first struct) until a store splits it off. A struct that was only
    /// named so far (a forward reference) is now declared; one declared
    /// already cannot be again.
    fn parse_struct(&mut self) -> Result<(), Error> {
        // A struct's body runs once, where it is declared.
        if !self.at_top_level() {
            return Err(Error::new(
                "struct declarations can only appear in top level scope",
                self.lexer.token_start(),
            ));
        }
        let name = self.require_id()?;
        if self.structs.contains_key(&name) {
            return Err(Error::new(
                format!("struct '{name}' cannot be redefined"),
                self.lexer.token_start(),
            ));
        }
        // Chapter 17: a struct's body is a constructor's scope, and no
        // longer the top level (a struct cannot be declared inside it).
        scope::push_constructor(&mut self.graph, self.scope);
        self.x_scopes.push(self.scope);
        self.require("{")?;
        while !self.lexer.peek_is('}') && !self.lexer.is_eof() {
            self.parse_statement()?;
        }
        let mut fields = Vec::new();
        let mut defaults = Vec::new();
        for (fname, t, fin, i) in scope::innermost(&self.graph, self.scope) {
            fields.push(self.graph.types.field_of(&fname, t, fin));
            defaults.push(self.graph.in_(self.scope, i));
        }
        let ty = self.graph.types.struct_of(&name, &fields);
        let s = node::struct_::new(&mut self.graph, ty, &defaults);
        let s = self.peephole(s);
        self.graph.keep(s);
        self.require("}")?;
        self.require(";")?;
        self.x_scopes.pop();
        scope::pop(&mut self.graph, self.scope);
        let first_alias = self.next_alias;
        self.next_alias += fields.len() as u32;
        let info = StructInfo {
            ty,
            first_alias,
            defaults: Some(s),
        };
        self.structs.insert(name, info);
        Ok(())
    }

    /// `bitwise ['?' asgn [':' asgn]]`: chapter 17's conditional
    /// expression, whose arms may be assignments (`a ? b ? c : d` is
    /// `a ? (b ? c : d) : 0`).
    fn parse_expression(&mut self) -> Parsed {
        let at = self.lexer.token_start();
        let e = self.parse_bitwise()?;
        if self.lexer.matches("?") {
            return self.parse_trinary(e, Arms::Values, at);
        }
        Ok(e)
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
            lhs = self.peep(n);
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
                lhs = p.peep(cmp);
                if negate {
                    let not = p.graph.add_node(NodeKind::Not, vec![None, Some(lhs)]);
                    lhs = p.peep(not);
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
            // Chapter 18: shifting a float is an error as soon as it is
            // read, reachable or not, as Simple checks it while parsing.
            // Chapter 19: an operand of no known kind (`Bot`: a `var` given
            // the value of a call that control never reaches, `Top`,
            // widens to it) is left to the check after optimization,
            // which sees whether the code is reachable at all.
            let unknown = (1..=2).any(|i| self.graph.ty(self.graph.in_(n, i)) == Types::BOTTOM);
            if let Some(mut e) = (!unknown)
                .then(|| node::error(&mut self.graph, n))
                .flatten()
            {
                e.offset = at;
                return Err(e);
            }
            let n = node::widen(&mut self.graph, n);
            lhs = self.peep(n);
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
                lhs = p.peep(n);
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
                lhs = p.peep(n);
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

    /// `('++' | '--') id | '-' unary | '!' unary | postfix`
    ///
    /// Chapter 17: `++x` and `--x` add 1 or -1 to variable `x` and are its
    /// new value. Only a bound name counts: `--12` is still `-(-12)`, and
    /// from chapter 18 only a name not bound to a reference: `--s.x` is
    /// `-(-s.x)`.
    fn parse_unary(&mut self) -> Parsed {
        self.nested(|p| {
            let old = p.lexer.token_start();
            let delta = if p.lexer.matches("++") {
                Some(1)
            } else if p.lexer.matches("--") {
                Some(-1)
            } else {
                None
            };
            if let Some(delta) = delta {
                let at = p.lexer.token_start();
                if let Some(name) = p.match_var() {
                    return p.pre_increment(&name, delta, at);
                }
                p.lexer.set_pos(old);
            }
            if p.lexer.matches("-") {
                let operand = p.parse_unary()?;
                let n = p.graph.add_node(NodeKind::Minus, vec![None, Some(operand)]);
                let n = node::widen(&mut p.graph, n);
                return Ok(p.peep(n));
            }
            if p.lexer.matches("!") {
                let operand = p.parse_unary()?;
                let n = p.graph.add_node(NodeKind::Not, vec![None, Some(operand)]);
                return Ok(p.peep(n));
            }
            let primary = p.parse_primary()?;
            p.parse_postfix(primary)
        })
    }

    /// `('.' field | '#' | '[' expr ']')*`, and a final `= expr` makes the
    /// last access a store. `a#` reads the length of array `a`, `a[i]` its
    /// element `i`. A store's value as an expression is the value stored
    /// (as cut to the field's type).
    fn parse_postfix(&mut self, expr: NodeId) -> Parsed {
        let mut expr = expr;
        loop {
            let dot = self.lexer.token_start();
            let access = if self.lexer.matches(".") {
                "."
            } else if self.lexer.matches("#") {
                "#"
            } else if self.lexer.matches("[") {
                "[]"
            } else if self.lexer.matches("(") {
                // Chapter 18: a call.
                expr = self.function_call(expr, dot)?;
                self.require(")")?;
                continue;
            } else {
                return Ok(expr);
            };
            let t = self.graph.ty(expr);
            // Chapter 18: dead code (after a `return`, or on an arm that
            // never runs) is checked as any other, as Simple's chapter 18
            // does (chapters 16 and 17 skipped its field accesses).
            if !self.graph.types.is_ptr(t) && t != Types::NULL {
                let shown = self.graph.types.str(t);
                // Chapter 19: `#` and `[` want an array.
                let wanted = if access == "." { "reference" } else { "array" };
                return Err(Error::new(
                    format!("Expected {wanted} but found {shown}"),
                    dot,
                ));
            }
            let at = if access == "." {
                self.lexer.token_start()
            } else {
                dot
            };
            let name = if access == "." {
                self.require_id()?
            } else {
                access.to_owned()
            };
            // Chapter 18: null has no fields, in dead code too.
            if t == Types::NULL {
                return Err(Error::new(
                    format!("Accessing unknown field '{name}' from 'null'"),
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
            // An element's byte offset: `(i<<scale)+base`, from the layout;
            // a field's is a constant, from the layout too.
            let element = access == "[]";
            let off = if element {
                self.graph.keep(expr);
                let index = self.parse_asgn();
                self.graph.unkeep(expr);
                let index = index?;
                self.require("]")?;
                self.element_offset(info.ty, index)
            } else {
                let at = self
                    .graph
                    .types
                    .struct_layout(info.ty)
                    .map_or(0, |l| l.offsets[idx]);
                self.constant(at.into())
            };
            self.graph.keep(off);
            if self.lexer.matches_assign() {
                self.graph.keep(expr);
                let value = self.parse_asgn();
                let value = value.and_then(|v| {
                    self.graph.keep(v);
                    let fin = self.graph.types.field_is_final(info.ty, idx);
                    let lifted = self.lift_expr(v, declared, fin, at);
                    self.graph.unkeep(v);
                    lifted.map(|l| (v, l))
                });
                self.graph.unkeep(expr);
                // The offset stays kept until the store takes it:
                // converting the value may free a constant equal to it
                // (`p.f1 = 8 - p.f2` into a `flt` at offset 8: the int 8
                // gives way to 8.0, and the offset 8 died with it).
                let (value, lifted) = match value {
                    Ok(v) => v,
                    Err(e) => {
                        self.graph.unkeep(off);
                        return Err(e);
                    }
                };
                self.graph.keep(value);
                self.store(&name, alias, declared, at, expr, off, lifted);
                self.graph.unkeep(off);
                // Chapter 17: the value of `p.f = e` is `e` as written.
                return Ok(self.graph.unkeep(value));
            }
            // Chapter 19: a load is of the field's declared type, as in
            // Simple's chapters 18 and 19 (chapter 18 here lowered it to
            // the type's bottom: a pointer to nullable, `u8` to `int`). A
            // field that may not be null is set by every `new` (a
            // constructor must), so is never read null. It points to the
            // struct as declared by now, as a pointer made by `new` does:
            // a loop variable that takes both (`head = head.next`) keeps
            // one type.
            let load_type = self.deepen(declared);
            // Chapter 17: what is read through a read-only reference is
            // read-only too.
            let load_type = if self.graph.types.is_final(t) {
                self.graph.types.make_ro(load_type)
            } else {
                load_type
            };
            let mem = self.memory(alias);
            let load = load_new(&mut self.graph, &name, alias, load_type, at, mem, expr);
            self.graph.add_def(load, Some(off));
            if element {
                // An element is read no earlier than where the program reads
                // it: its index may be valid only there (Simple's stand-in
                // for a range check).
                let ctrl = self.ctrl();
                self.graph.set_def(load, 0, Some(ctrl));
            }
            // The object stays alive for a `++` after the load, which may
            // fold away.
            self.graph.keep(expr);
            let load = self.peep(load);
            // Chapter 17: `p.f++` and `a[i]--` store the value plus or minus
            // one; the expression is the old value. Chapter 18: and
            // `p.f += e` (`-=`, `*=`, `/=`) stores and is the new value.
            let op_at = self.lexer.token_start();
            let op = self.lexer.match_oper_assign();
            let (kind, delta) = match op {
                OperAssign::None => (None, None),
                OperAssign::Op(b'+') => (Some(NodeKind::Add), None),
                OperAssign::Op(b'-') => (Some(NodeKind::Sub), None),
                OperAssign::Op(b'*') => (Some(NodeKind::Mul), None),
                OperAssign::Op(b'/') => (Some(NodeKind::Div), None),
                OperAssign::Inc => (Some(NodeKind::Add), Some(1)),
                OperAssign::Dec => (Some(NodeKind::Add), Some(-1)),
                OperAssign::Op(_) => {
                    self.graph.unkeep(expr);
                    self.graph.unkeep(off);
                    return Err(Error::new("Not yet implemented", op_at));
                }
            };
            // A field the struct declares final cannot change (an array's
            // elements always can); one final only through a read-only
            // reference is the store's error, found once optimized.
            if kind.is_some() && !element && self.graph.types.field_is_final(info.ty, idx) {
                self.graph.unkeep(expr);
                self.graph.unkeep(off);
                return Err(Error::new(format!("Cannot reassign final '{name}'"), at));
            }
            let mut value = load;
            if let Some(kind) = kind {
                self.graph.keep(load);
                let rhs = match delta {
                    Some(delta) => Ok(self.constant(delta)),
                    None => self.parse_asgn(),
                };
                let rhs = match rhs {
                    Ok(rhs) => rhs,
                    Err(e) => {
                        self.graph.unkeep(load);
                        self.graph.unkeep(expr);
                        self.graph.unkeep(off);
                        return Err(e);
                    }
                };
                let n = node::new_binary(&mut self.graph, kind, load, rhs);
                let n = node::widen(&mut self.graph, n);
                let sum = self.peep(n);
                self.note_operator(n, op_at);
                let sum = match delta {
                    Some(_) => Ok(self.zs_mask(sum, declared)),
                    None => self.lift_expr(sum, declared, false, op_at),
                };
                let sum = match sum {
                    Ok(sum) => sum,
                    Err(e) => {
                        self.graph.unkeep(load);
                        self.graph.unkeep(expr);
                        self.graph.unkeep(off);
                        return Err(e);
                    }
                };
                self.graph.keep(sum);
                self.store(&name, alias, declared, at, expr, off, sum);
                self.graph.unkeep(sum);
                self.graph.unkeep(load);
                if delta.is_none() {
                    value = sum;
                }
            }
            // The value outlives the object and offset it was read
            // through: killing them may free a constant that the load
            // folded to as well (`a[(0 >= x)*i]` of a new `flt` array: the
            // index's `0.0` is the element's zero, found again).
            self.graph.keep(value);
            self.graph.unkeep(expr);
            if self.graph.is_unused(expr) {
                self.graph.kill(expr);
            }
            self.graph.unkeep(off);
            if self.graph.is_unused(off) {
                self.graph.kill(off);
            }
            expr = self.graph.unkeep(value);
        }
    }

    /// A Store of `value` into field `name` (alias class `alias`, declared
    /// type `declared`) of the object `ptr` points to, at byte offset `off`;
    /// it becomes the class's memory, and is returned.
    #[allow(clippy::too_many_arguments)]
    fn store(
        &mut self,
        name: &str,
        alias: u32,
        declared: TypeId,
        at: usize,
        ptr: NodeId,
        off: NodeId,
        value: NodeId,
    ) -> NodeId {
        let ctrl = self.ctrl();
        let mem = self.memory(alias);
        let field = StoreField {
            name,
            alias,
            declared,
        };
        let st = store_new(&mut self.graph, field, at, ctrl, mem, ptr, value);
        self.graph.add_def(st, Some(off));
        let st = self.peephole(st);
        self.set_memory(alias, st);
        st
    }

    /// The byte offset of element `index` of array type `ary`:
    /// `base + (index << scale)`, both from the array's layout.
    fn element_offset(&mut self, ary: TypeId, index: NodeId) -> NodeId {
        let layout = self
            .graph
            .types
            .struct_layout(ary)
            .expect("an array's elements have a layout");
        let scale = self.constant(layout.scale.into());
        let shl = self
            .graph
            .add_node(NodeKind::Shl, vec![None, Some(index), Some(scale)]);
        let shl = self.peephole(shl);
        let base = self.constant(layout.offsets[1].into());
        let add = self
            .graph
            .add_node(NodeKind::Add, vec![None, Some(base), Some(shl)]);
        self.peephole(add)
    }

    /// The current state of alias class `alias`: `$mem` itself until a
    /// store splits the class off.
    fn memory(&mut self, alias: u32) -> NodeId {
        scope::memory(&mut self.graph, self.scope, alias)
    }

    /// Makes `st` the state of alias class `alias`.
    fn set_memory(&mut self, alias: u32, st: NodeId) {
        scope::set_memory(&mut self.graph, self.scope, alias, st);
    }

    /// After `new S`: an optional constructor block `{ statement* }`, in
    /// which each field is a variable holding its default value (a final
    /// one may be set once if it has none); the values the fields hold at
    /// its `}` are the new object's. Every field must have one by then.
    fn parse_constructor(&mut self, info: StructInfo, name: &str, at: usize) -> Parsed {
        let defaults = info.defaults.expect("a struct has its defaults");
        let count = self.graph.types.field_count(info.ty);
        let block = self.lexer.matches("{");
        let values: Vec<NodeId> = if block {
            let first = self.graph.n_ins(self.scope);
            scope::push(&mut self.graph, self.scope);
            for idx in 0..count {
                let fname = self.graph.types.field_name(info.ty, idx);
                let t = self.graph.types.field_type(info.ty, idx);
                let fin = self.graph.types.field_is_final(info.ty, idx);
                let mut value = node::struct_::default(&self.graph, defaults, idx);
                // Chapter 17: a field that must be set (its default is
                // `Top`) is `Bottom` in the constructor, until it is set;
                // reading it before is an error.
                if self.graph.ty(value) == Types::TOP {
                    let c = node::new_constant(&mut self.graph, Types::BOTTOM);
                    value = self.peephole(c);
                }
                scope::define_var(&mut self.graph, self.scope, &fname, t, fin, value);
            }
            let value = self.parse_block(true)?;
            self.discard(value);
            self.require("}")?;
            (first..first + count)
                .map(|i| scope::lookup_slot(&mut self.graph, self.scope, i))
                .collect()
        } else {
            (0..count)
                .map(|idx| node::struct_::default(&self.graph, defaults, idx))
                .collect()
        };
        // A field still `Bottom` was never set in the constructor (chapter
        // 17); one still `Top` had no constructor to set it (Simple lets
        // that pass, and its evaluator then fails). Dead code is checked
        // too, as Simple's chapter 18 does: a field read there is a load
        // like any other (chapters 16 and 17 made it `Top`).
        // Chapter 19: but a constructor that sets a field to `Top` set it
        // to a value never computed: that of a call control never
        // reaches (or of a load after one), in code that never runs.
        // (Until it is set, a field that must be is `Bottom`.)
        for (idx, &v) in values.iter().enumerate() {
            let t = self.graph.ty(v);
            let set_in_dead_code = t == Types::TOP && block;
            if (t == Types::BOTTOM || t == Types::TOP) && !set_in_dead_code {
                let fname = self.graph.types.field_name(info.ty, idx);
                return Err(Error::new(
                    format!(
                        "'{name}' is not fully initialized, field '{fname}' needs to be set in a constructor"
                    ),
                    at,
                ));
            }
        }
        // Chapter 19: a field's initialiser is computed where its struct
        // is declared, at the top level, so inside a function a default
        // that is no constant is a value of another function. The
        // evaluators can read it there, but machine code compiles each
        // function on its own (as for a variable: functions are no
        // closures). Main's body is the first function, so a function
        // inside it has two scopes around it.
        if self.outer_scopes.len() > 1 {
            for (idx, &v) in values.iter().enumerate() {
                let default = node::struct_::default(&self.graph, defaults, idx);
                if v == default && !self.graph.types.is_constant(self.graph.ty(v)) {
                    let fname = self.graph.types.field_name(info.ty, idx);
                    return Err(Error::new(
                        format!(
                            "Field '{fname}' of '{name}' is initialized out of function scope and must be set in the constructor or be a final constant"
                        ),
                        at,
                    ));
                }
            }
        }
        let size = self
            .graph
            .types
            .struct_layout(info.ty)
            .map_or(0, |l| l.size);
        let size = self.constant(size.into());
        let ptr = self.new_struct(info, size, &values);
        if block {
            self.graph.keep(ptr);
            scope::pop(&mut self.graph, self.scope);
            self.graph.unkeep(ptr);
        }
        Ok(ptr)
    }

    /// `new S` of `size` bytes with its fields' initial `values`: a New
    /// taking the current slice of each field's alias class, whose
    /// projections are the new state of each class (the new object's field
    /// zero) and the pointer; then (chapter 19) a store of each initial
    /// value that is not zero, at the field's offset, into the new object.
    fn new_struct(&mut self, info: StructInfo, size: NodeId, values: &[NodeId]) -> NodeId {
        let ptr = self.graph.types.ptr(info.ty, false);
        let count = self.graph.types.field_count(info.ty) as u32;
        self.graph.keep(size);
        for &v in values {
            self.graph.keep(v);
        }
        // Looking a slice up may make a loop's lazy phi: field order.
        let mems: Vec<NodeId> = (info.first_alias..info.first_alias + count)
            .map(|alias| {
                let m = self.memory(alias);
                self.graph.keep(m);
                m
            })
            .collect();
        for &n in &mems {
            self.graph.unkeep(n);
        }
        self.graph.unkeep(size);
        let ctrl = self.ctrl();
        let n = new_new(&mut self.graph, ptr, info.first_alias, ctrl, size, &mems);
        let n = self.peephole(n);
        self.graph.keep(n);
        for i in 0..count {
            let proj = proj_new(&mut self.graph, n, i as usize + 2, "");
            let proj = self.peephole(proj);
            self.set_memory(info.first_alias + i, proj);
        }
        let p = proj_new(&mut self.graph, n, 1, "");
        let p = self.peephole(p);
        self.graph.unkeep(n);
        self.graph.keep(p);
        let offsets = self
            .graph
            .types
            .struct_layout(info.ty)
            .map(|l| l.offsets)
            .unwrap_or_default();
        for (i, &v) in values.iter().enumerate() {
            self.graph.unkeep(v);
            let t = self.graph.ty(v);
            if self.graph.types.make_init(t) == Some(t) {
                continue; // the New's zero
            }
            let name = self.graph.types.field_name(info.ty, i);
            let declared = self.graph.types.field_type(info.ty, i);
            let off = self.constant(offsets.get(i).copied().unwrap_or(0).into());
            let at = self.lexer.token_start();
            let alias = info.first_alias + i as u32;
            let st = self.store(&name, alias, declared, at, p, off, v);
            self.graph.init_stores.insert(st);
        }
        self.graph.unkeep(p)
    }

    /// `number | '(' expr ')' | 'true' | 'false' | id`
    fn parse_primary(&mut self) -> Parsed {
        let at = self.lexer.token_start();
        if self.lexer.is_number() {
            return self.parse_literal();
        }
        if self.lexer.matches("(") {
            let e = self.parse_asgn()?;
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
            return self.parse_new();
        }
        // Chapter 18: a function literal.
        if self.lexer.matches("{") {
            let f = self.parse_function(at)?;
            self.require("}")?;
            return Ok(f);
        }
        // (A keyword is consumed first: Simple names the token after it.)
        let Some(name) = self.lexer.match_id().filter(|n| !is_keyword(n)) else {
            return Err(self.error_syntax("an identifier or expression"));
        };
        let value = self.lookup_id(&name, at)?;
        // Chapter 17: a field a constructor has yet to set is the constant
        // `Bottom` (a value computed in dead code may be typed `Bottom`
        // too, and is no error).
        if matches!(self.graph.kind(value), NodeKind::Constant(Types::BOTTOM)) {
            return Err(Error::new(
                format!("Cannot read uninitialized field '{name}'"),
                at,
            ));
        }
        // A not-null reference declared without a value holds `Top` until
        // it is given one; reading it before is an error (Simple lets the
        // `Top` through). Other names hold `Top` only in dead code (a merge
        // of no live path), where this is not checked.
        if matches!(self.graph.kind(value), NodeKind::Constant(Types::TOP))
            && self.graph.ty(self.ctrl()) != Types::XCTRL
            && scope::declared_type(&self.graph, self.scope, &name)
                .is_some_and(|t| self.graph.types.not_null(t))
        {
            return Err(Error::new(
                format!("Variable '{name}' is not initialized"),
                at,
            ));
        }
        // Chapter 17: `x op= e`, `x++`, `x--`.
        let op_at = self.lexer.token_start();
        let op = self.lexer.match_oper_assign();
        let (kind, rhs) = match op {
            OperAssign::None => return Ok(value),
            OperAssign::Op(b'+') => (NodeKind::Add, None),
            OperAssign::Op(b'-') => (NodeKind::Sub, None),
            OperAssign::Op(b'*') => (NodeKind::Mul, None),
            OperAssign::Op(b'/') => (NodeKind::Div, None),
            OperAssign::Inc => (NodeKind::Add, Some(1)),
            OperAssign::Dec => (NodeKind::Add, Some(-1)),
            // `&=`, `|=` and `^=`: not in Simple yet.
            OperAssign::Op(_) => return Err(Error::new("Not yet implemented", op_at)),
        };
        // Chapter 18: a name not declared (yet) cannot be assigned.
        if scope::declared_type(&self.graph, self.scope, &name).is_none() {
            return Err(Error::new(format!("Undefined name '{name}'"), at));
        }
        self.check_not_final(&name, at)?;
        let n = self.graph.add_node(kind, vec![None, Some(value), None]);
        let rhs = match rhs {
            Some(delta) => self.constant(delta),
            None => self.parse_asgn()?,
        };
        self.graph.set_def(n, 2, Some(rhs));
        let n = node::widen(&mut self.graph, n);
        let sum = self.peep(n);
        self.note_operator(n, op_at);
        let declared =
            scope::declared_type(&self.graph, self.scope, &name).expect("looked up above");
        let sum = self.zs_mask(sum, declared);
        // The old value is the result of `x++`: keep it alive past the
        // update.
        self.graph.keep(value);
        scope::update(&mut self.graph, self.scope, &name, sum);
        self.graph.unkeep(value);
        Ok(if op == OperAssign::Inc || op == OperAssign::Dec {
            value
        } else {
            sum
        })
    }

    /// Chapter 18: the value of name `name`. A name not (yet) bound is a
    /// forward reference; a name bound outside the function being parsed
    /// must be a final constant (functions are no closures).
    fn lookup_id(&mut self, name: &str, at: usize) -> Parsed {
        if let Some(value) = scope::lookup(&mut self.graph, self.scope, name) {
            return Ok(value);
        }
        // A name of the code around the function: it must not change.
        for i in (0..self.outer_scopes.len()).rev() {
            let outer = self.outer_scopes[i];
            let Some((value, fin)) = scope::peek(&self.graph, outer, name) else {
                continue;
            };
            let fref = matches!(self.graph.kind(value), NodeKind::FRef { .. });
            let constant = self.graph.types.is_constant(self.graph.ty(value));
            if !(fref || (fin && constant)) {
                return Err(Error::new(
                    format!(
                        "Variable '{name}' is out of function scope and must be a final constant"
                    ),
                    at,
                ));
            }
            return Ok(value);
        }
        if let Some(&f) = self.frefs.get(name) {
            return Ok(f);
        }
        let f = node::fref::new(&mut self.graph, name, at);
        self.graph.keep(f);
        self.frefs.insert(name.to_owned(), f);
        Ok(f)
    }

    /// Chapter 18: `{ type id, ... -> body }`, the `{` read at `at`: a
    /// function with a new function index, whose body is parsed as any
    /// function's. Its value is the function's constant pointer.
    fn parse_function(&mut self, at: usize) -> Parsed {
        let mut params: Vec<(String, TypeId)> = Vec::new();
        while let Some(t) = self.parse_type()? {
            let name = self.require_id()?;
            params.push((name, t));
            self.lexer.matches(",");
        }
        self.require("->")?;
        let args: Vec<TypeId> = params.iter().map(|p| p.1).collect();
        let sig = self.graph.types.new_function(&args, Types::BOTTOM);
        let ret = self.parse_function_body(sig, &params, at)?;
        let fun = *self
            .graph
            .fun_of_return
            .get(&ret)
            .expect("a function's Return knows its Fun");
        let t = node::fun::sig(&self.graph, fun);
        let c = node::new_constant(&mut self.graph, t);
        Ok(self.peephole(c))
    }

    /// Chapter 18: `expr(args)`, the `(` read at `at`: a Call of the
    /// function pointer `expr` with the whole memory, and its CallEnd,
    /// whose control, memory and result are what follows.
    fn function_call(&mut self, expr: NodeId, at: usize) -> Parsed {
        let t = self.graph.ty(expr);
        if t == Types::NULL {
            return Err(Error::new("Calling a null function pointer", at));
        }
        let is_fref = matches!(self.graph.kind(expr), NodeKind::FRef { .. });
        if !is_fref && !self.graph.types.is_fun_ptr(t) {
            let low = self.graph.types.glb(t);
            let shown = self.graph.types.str(low);
            return Err(Error::new(
                format!("Expected a function but got {shown}"),
                at,
            ));
        }
        self.graph.keep(expr);
        let mut args = Vec::new();
        while !self.lexer.peek_is(')') {
            let a = self.parse_asgn()?;
            self.graph.keep(a);
            args.push(a);
            if !self.lexer.matches(",") {
                break;
            }
        }
        let mem = self.memory_merge();
        let ctrl = self.ctrl();
        for &a in &args {
            self.graph.unkeep(a);
        }
        self.graph.unkeep(expr);
        // Chapter 19: a call that control never reaches is not made; its
        // value is `Top` (as in Simple).
        if self.graph.ty(ctrl) == Types::XCTRL {
            // (A forward reference stays, to be resolved or reported.)
            let fptr = (!is_fref).then_some(expr);
            for n in args.into_iter().chain([mem]).chain(fptr) {
                self.discard(n);
            }
            let top = node::new_constant(&mut self.graph, Types::TOP);
            return Ok(self.peephole(top));
        }
        let g = &mut self.graph;
        let call = node::call::new(g, ctrl, mem, &args, expr, at);
        let call = node::peephole(g, call);
        let cend = node::call_end::new(g, call);
        let cend = node::peephole(g, cend);
        // Linking waits for the CallEnd: the call is visited again (a
        // call of a forward reference, when the reference is resolved).
        if !matches!(g.kind(expr), NodeKind::FRef { .. }) {
            g.work.push(call);
        }
        // Kept while its projections are made: in dead code the control
        // projection folds away at once and would take the CallEnd with it.
        g.keep(cend);
        let c = cproj_new(g, cend, 0, scope::CTRL);
        let c = node::peephole(g, c);
        let m = proj_new(g, cend, 1, scope::MEM);
        let m = node::peephole(g, m);
        g.unkeep(cend);
        let v = proj_new(g, cend, 2, "");
        let v = node::peephole(g, v);
        self.set_ctrl(c);
        // After the call all of memory is what it hands back.
        let g = &mut self.graph;
        let old = scope::mem(g, self.scope);
        let min = node::scope_min::new(g, Some(m));
        g.set_def(self.scope, 1, Some(min));
        if g.is_unused(old) {
            g.kill(old);
        }
        Ok(v)
    }

    /// Chapter 18: a function type is next (`{int -> int}`), which makes a
    /// `{` a declaration, not a block. Nothing is read.
    fn is_type_fun(&mut self) -> bool {
        let old = self.lexer.pos();
        let found = matches!(self.type_fun_ptr(), Ok(Some(_)));
        self.lexer.set_pos(old);
        found
    }

    /// Chapter 18: `{ args -> ret }` or `{ ret }` (no arguments), then `?`
    /// if it may be null; `None` (nothing read) if no function type is
    /// next.
    fn type_fun_ptr(&mut self) -> Result<Option<TypeId>, Error> {
        let old = self.lexer.pos();
        // Blocks nest (`{{{...`), and each `{` asks whether a type starts
        // there: remember where none does, so the question costs once.
        if self.no_fun_type.contains(&old) || !self.lexer.matches("{") {
            return Ok(None);
        }
        let found = self.nested(|p| p.type_fun_ptr_body(old));
        if !matches!(found, Ok(Some(_))) {
            self.no_fun_type.insert(old);
            self.lexer.set_pos(old);
        }
        found
    }

    /// [`Parser::type_fun_ptr`] after its `{` (read at `old`).
    fn type_fun_ptr_body(&mut self, old: usize) -> Result<Option<TypeId>, Error> {
        let Some(t0) = self.parse_type()? else {
            self.lexer.set_pos(old);
            return Ok(None);
        };
        let nil = |p: &mut Self| if p.lexer.matches("?") { 3 } else { 2 };
        if self.lexer.matches("}") {
            let n = nil(self);
            return Ok(Some(self.graph.types.fun_ptr(
                Types::NO_ARGS,
                t0,
                IdxSet::all(),
                n,
            )));
        }
        let mut args = vec![t0];
        loop {
            if self.lexer.matches("->") {
                let ret = self.parse_type()?;
                let Some(ret) = ret.filter(|_| self.lexer.matches("}")) else {
                    self.lexer.set_pos(old);
                    return Ok(None);
                };
                let n = nil(self);
                let sig = self.graph.types.tuple(&args);
                return Ok(Some(self.graph.types.fun_ptr(sig, ret, IdxSet::all(), n)));
            }
            let Some(t) = self.parse_type()? else {
                self.lexer.set_pos(old);
                return Ok(None);
            };
            args.push(t);
        }
    }

    /// A name bound to a variable that is not a struct or array reference,
    /// if one is next; else nothing is read. (Chapter 18: `--s.x` is
    /// `-(-s.x)` when `s` is a reference.)
    fn match_var(&mut self) -> Option<String> {
        let old = self.lexer.pos();
        match self.lexer.match_id() {
            Some(name)
                if !is_keyword(&name)
                    && scope::declared_type(&self.graph, self.scope, &name)
                        .is_some_and(|t| !self.graph.types.is_ptr(t)) =>
            {
                Some(name)
            }
            _ => {
                self.lexer.set_pos(old);
                None
            }
        }
    }

    /// `++x` or `--x` (`delta` 1 or -1): the variable's new value.
    fn pre_increment(&mut self, name: &str, delta: i64, at: usize) -> Parsed {
        self.check_not_final(name, at)?;
        let value = scope::lookup(&mut self.graph, self.scope, name).expect("a variable");
        let one = self.constant(delta);
        let n = node::new_binary(&mut self.graph, NodeKind::Add, value, one);
        let n = node::widen(&mut self.graph, n);
        let sum = self.peep(n);
        self.note_operator(n, at);
        let declared = scope::declared_type(&self.graph, self.scope, name).expect("a variable");
        let sum = self.zs_mask(sum, declared);
        scope::update(&mut self.graph, self.scope, name, sum);
        Ok(sum)
    }

    /// `new S` or `new T[len]`, `new` already read.
    fn parse_new(&mut self) -> Parsed {
        let at = self.lexer.token_start();
        let Some(t) = self.parse_type()? else {
            // A name, but of no type: a struct not declared.
            return Err(match self.lexer.match_id() {
                Some(name) => Error::new(format!("Unknown struct type '{name}'"), at),
                None => Error::new("Expected a type", at),
            });
        };
        let bracket = self.lexer.token_start();
        if self.lexer.matches("[") {
            // Chapter 18: every element starts as its type's zero, so the
            // type must hold it: a pointer of either kind must be nullable.
            let types = &mut self.graph.types;
            let zero = types.make_zero(t);
            if !zero.is_some_and(|z| types.isa(z, t)) {
                return Err(Error::new(
                    "Cannot allocate a non-nullable, since arrays always zero/null fill",
                    bracket,
                ));
            }
            let len = self.parse_asgn()?;
            let lt = self.graph.ty(len);
            if !self.graph.types.is_int(lt) {
                let shown = self.graph.types.to_string(lt);
                return Err(Error::new(
                    format!("Cannot allocate an array with length {shown}"),
                    bracket,
                ));
            }
            self.require("]")?;
            self.graph.keep(len);
            let info = self.array_type(t, at);
            self.graph.unkeep(len);
            return self.new_array(info?, len);
        }
        let types = &self.graph.types;
        let Some(obj) = types.pointee(t) else {
            return Err(Error::new(
                format!("Cannot allocate a {}", types.str(t)),
                at,
            ));
        };
        let name = types.struct_name(obj).unwrap_or_default().to_owned();
        match self.structs.get(&name).copied() {
            Some(info) if info.defaults.is_some() => self.parse_constructor(info, &name, at),
            // Not a struct (an array needs a length), or one not declared
            // yet.
            _ => Err(Error::new(format!("Unknown struct type '{name}'"), at)),
        }
    }

    /// `new T[len]`: a New of `base + (len << scale)` bytes, whose fields
    /// start out as the length and, for every element, its type's zero.
    fn new_array(&mut self, info: StructInfo, len: NodeId) -> Parsed {
        self.graph.keep(len);
        let layout = self
            .graph
            .types
            .struct_layout(info.ty)
            .expect("an array has a layout");
        let base = self.constant(layout.offsets[1].into());
        self.graph.keep(base);
        let scale = self.constant(layout.scale.into());
        let shl = self
            .graph
            .add_node(NodeKind::Shl, vec![None, Some(len), Some(scale)]);
        let shl = self.peephole(shl);
        self.graph.unkeep(base);
        let size = self
            .graph
            .add_node(NodeKind::Add, vec![None, Some(base), Some(shl)]);
        let size = self.peephole(size);
        self.graph.keep(size);
        let zero = self
            .graph
            .types
            .make_init(self.graph.types.field_type(info.ty, 1))
            .expect("an element has a zero");
        let zero = node::new_constant(&mut self.graph, zero);
        let zero = self.peephole(zero);
        self.graph.unkeep(size);
        self.graph.unkeep(len);
        Ok(self.new_struct(info, size, &[len, zero]))
    }

    fn constant(&mut self, value: i64) -> NodeId {
        let ty = self.graph.types.int(value);
        let c = node::new_constant(&mut self.graph, ty);
        self.peephole(c)
    }

    /// An int literal, `[1-9][0-9]* | 0`, as a 64-bit signed integer, or a
    /// flt literal: digits, then `.` or `e`, then more digits, `.`s and
    /// `e`s, read as a 64-bit IEEE float (as Java's `Double.parseDouble`
    /// reads it: `1.5`, `2.`, `1e10`, `1.5e3`, and from chapter 21 `1e-15`:
    /// a minus may follow an `e`; a literal too large for a double is
    /// `Infinity`).
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

/// A word no variable can be named: a keyword or a primitive type's name.
fn is_keyword(name: &str) -> bool {
    KEYWORDS.contains(&name) || prim_type(name).is_some()
}

/// The type a primitive type name stands for: `int`, `u8`, `f32`...
fn prim_type(name: &str) -> Option<TypeId> {
    PRIMITIVE_TYPES
        .iter()
        .find(|&&(n, _)| n == name)
        .map(|&(_, t)| t)
}
