//! Encoding (chapter 21): from the allocated machine program to bytes.

pub mod program;
