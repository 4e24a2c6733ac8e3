//! Encoding (chapter 21): from the allocated machine program to bytes.

pub mod elf;
pub mod link;
pub mod program;
