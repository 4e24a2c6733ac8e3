//! todo
use crate::EncodeResult;
use std::fmt;
#[derive(Clone, Copy, Debug)]
pub enum Inst {
    Nop,
}
impl Inst {
    pub fn encode(&self, _b: &mut Vec<u8>) -> EncodeResult {
        Ok(None)
    }
}
impl fmt::Display for Inst {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("nop")
    }
}
