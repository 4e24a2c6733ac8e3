//! The lexer: a cursor over the source text.
//!
//! There are no tokens as such. The parser asks "is `while` next?" and the
//! lexer answers by matching text at the cursor after skipping white space
//! (every character up to and including the space counts as white space).
//! Identifiers start with a letter or `_` and go on with letters, digits
//! and `_`.
//!
//! Chapter 17 adds the compound assignments (`+=` and its kin) and the
//! increments `++`/`--` after a name ([`Lexer::match_oper_assign`]), and
//! a way to skip over an expression without parsing it, which a `for`
//! loop needs for its step ([`Lexer::next_x_char`]).

pub struct Lexer<'a> {
    src: &'a str,
    pos: usize,
}

impl<'a> Lexer<'a> {
    pub fn new(src: &'a str) -> Self {
        Lexer { src, pos: 0 }
    }

    /// The byte offset of the cursor.
    pub fn pos(&self) -> usize {
        self.pos
    }

    pub fn is_eof(&self) -> bool {
        self.pos >= self.src.len()
    }

    fn peek(&self) -> Option<char> {
        self.src[self.pos..].chars().next()
    }

    /// Skips white space and `//` comments, which run to the end of the line.
    pub fn skip_white_space(&mut self) {
        loop {
            let rest = &self.src.as_bytes()[self.pos..];
            match rest {
                [c, ..] if *c <= b' ' => self.pos += 1,
                [b'/', b'/', ..] => {
                    self.pos += rest.iter().position(|&c| c == b'\n').unwrap_or(rest.len());
                }
                _ => break,
            }
        }
    }

    /// Moves the cursor back to `pos`, to parse from there again.
    pub fn set_pos(&mut self, pos: usize) {
        self.pos = pos;
    }

    /// The cursor after skipping white space: where the next token starts.
    pub fn token_start(&mut self) -> usize {
        self.skip_white_space();
        self.pos
    }

    /// Consumes `syntax` if it is next.
    pub fn matches(&mut self, syntax: &str) -> bool {
        self.skip_white_space();
        if self.src[self.pos..].starts_with(syntax) {
            self.pos += syntax.len();
            true
        } else {
            false
        }
    }

    /// Consumes `syntax` if it is next and not the start of a longer
    /// identifier (`int` in `int x`, not in `intx`).
    pub fn matchx(&mut self, syntax: &str) -> bool {
        if !self.matches(syntax) {
            return false;
        }
        if self.peek().is_some_and(is_id_letter) {
            self.pos -= syntax.len();
            return false;
        }
        true
    }

    /// True if `ch` is next, without consuming it.
    pub fn peek_is(&mut self, ch: char) -> bool {
        self.skip_white_space();
        self.peek() == Some(ch)
    }

    /// Consumes a lone `=`, one not followed by another `=` (an
    /// assignment, not the start of `==`).
    pub fn matches_assign(&mut self) -> bool {
        self.skip_white_space();
        let rest = &self.src.as_bytes()[self.pos..];
        if rest.first() == Some(&b'=') && rest.get(1) != Some(&b'=') {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    /// After a name: a compound assignment (`+=`, `-=`, `*=`, `/=`, and
    /// `&=`, `|=`, `^=`, which are recognised so that they can be refused)
    /// or an increment `++` or decrement `--`, consumed. As in Simple,
    /// three more characters must follow (so `x++` at the very end of the
    /// text is not one), and `++`/`--` followed by a letter or digit is not
    /// one either: `arg--1` is `arg - -1`.
    pub fn match_oper_assign(&mut self) -> OperAssign {
        self.skip_white_space();
        let rest = &self.src.as_bytes()[self.pos..];
        if rest.len() < 3 {
            return OperAssign::None;
        }
        let (c0, c1) = (rest[0], rest[1]);
        if !b"+-/*&|^".contains(&c0) {
            return OperAssign::None;
        }
        if c1 == b'=' {
            self.pos += 2;
            return OperAssign::Op(c0);
        }
        let inc = match (c0, c1) {
            (b'+', b'+') => OperAssign::Inc,
            (b'-', b'-') => OperAssign::Dec,
            _ => return OperAssign::None,
        };
        if self.src[self.pos + 2..]
            .chars()
            .next()
            .is_some_and(is_id_letter)
        {
            return OperAssign::None;
        }
        self.pos += 2;
        inc
    }

    /// The next character after white space and comments, consumed (`None`
    /// at the end): for skipping over text without parsing it.
    pub fn next_x_char(&mut self) -> Option<char> {
        self.skip_white_space();
        let c = self.peek()?;
        self.pos += c.len_utf8();
        Some(c)
    }

    pub fn is_number(&self) -> bool {
        self.peek().is_some_and(|c| c.is_ascii_digit())
    }

    /// An identifier, if one is next.
    pub fn match_id(&mut self) -> Option<String> {
        self.skip_white_space();
        self.peek()
            .is_some_and(is_id_start)
            .then(|| self.take_while(is_id_letter).to_owned())
    }

    /// The text of a number literal (the caller checked one is next): its
    /// digits, and if a `.` or `e` follows them, everything up to the first
    /// character that is not a digit, `.` or `e`. As in Simple, this is
    /// only the shape of a float; whether it is one is for the parser to
    /// find out (`1.5e3` is, `1.2.3` and `1e` are not).
    pub fn number_string(&mut self) -> &'a str {
        let start = self.pos;
        self.take_while(|c| c.is_ascii_digit());
        if matches!(self.peek(), Some('.' | 'e')) {
            // Chapter 21: an `e` may be followed by a minus, for a
            // negative exponent (`1e-15`, `2.5e-3`).
            while let Some(c) = self.peek() {
                if !(c.is_ascii_digit() || c == '.' || c == 'e') {
                    break;
                }
                self.pos += 1;
                if c == 'e' && self.peek() == Some('-') {
                    self.pos += 1;
                }
            }
        }
        &self.src[start..self.pos]
    }

    /// Whatever comes next, for error messages: an identifier, a number, a
    /// punctuation character, any other character, or "" at the end.
    pub fn any_next_token(&mut self) -> String {
        match self.peek() {
            None => String::new(),
            Some(c) if is_id_start(c) => self.take_while(is_id_letter).to_owned(),
            Some(c) if c.is_ascii_digit() => self.number_string().to_owned(),
            Some(c) => {
                self.pos += c.len_utf8();
                c.to_string()
            }
        }
    }

    fn take_while(&mut self, pred: impl Fn(char) -> bool) -> &'a str {
        let start = self.pos;
        let rest = &self.src[start..];
        let len = rest.find(|c| !pred(c)).unwrap_or(rest.len());
        self.pos += len;
        &self.src[start..self.pos]
    }
}

/// What [`Lexer::match_oper_assign`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OperAssign {
    None,
    /// `op=`, with the operator's character.
    Op(u8),
    /// `++`
    Inc,
    /// `--`
    Dec,
}

fn is_id_start(c: char) -> bool {
    c.is_alphabetic() || c == '_'
}

fn is_id_letter(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}
