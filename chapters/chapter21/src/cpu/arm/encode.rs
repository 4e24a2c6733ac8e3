//! PLACEHOLDER: this CPU's encoder is being written on its own branch.

use crate::encode::{AnyInst, Cond, Emit};
use crate::error::Error;
use crate::graph::NodeId;
use crate::mach::Mach;
use crate::regalloc::Loc;

fn todo() -> Error {
    Error::new("this CPU cannot be encoded yet", 0)
}

pub fn emit(_e: &mut Emit, _n: NodeId, _m: &Mach) -> Result<(), Error> {
    Err(todo())
}

pub fn copy(_e: &mut Emit, _dst: Loc, _src: Loc, _float: bool) -> Result<(), Error> {
    Err(todo())
}

pub fn prologue(_e: &mut Emit) -> Result<(), Error> {
    Err(todo())
}

pub fn branch(_c: Cond, _disp: i64, _long: bool) -> Option<Vec<AnyInst>> {
    None
}

pub fn pad(code: &mut Vec<u8>, n: usize) {
    code.resize(code.len() + n, 0);
}
