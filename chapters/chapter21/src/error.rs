//! Compile errors: Simple's message plus where in the source it arose.

use std::fmt;

/// An error in the program being compiled. `message` is Simple's wording;
/// `offset` is the byte offset in the source of the offending token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    pub message: String,
    pub offset: usize,
}

impl Error {
    pub fn new(message: impl Into<String>, offset: usize) -> Self {
        Error {
            message: message.into(),
            offset,
        }
    }

    /// The 1-based line and column (in characters) of the error in `src`.
    pub fn line_col(&self, src: &str) -> (usize, usize) {
        let offset = floor_char_boundary(src, self.offset.min(src.len()));
        let before = &src[..offset];
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let col = src[line_start..offset].chars().count() + 1;
        (line, col)
    }
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}
