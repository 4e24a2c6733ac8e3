//! riscv: registers, calling convention, and the backend's parts for it.

pub mod legal;
pub mod ops;
pub mod select;
