//! Stage 1: text → AST. [`lexer`] holds the token parsers, [`parser`] the line-oriented
//! driver and statement grammars, [`ast`] the tree they build.

pub mod ast;
pub mod lexer;
pub mod parser;

pub use parser::parse_file;
