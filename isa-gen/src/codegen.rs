//! Stage 3: model → Rust source.
use crate::model::Model;
use crate::source::SourceMap;

#[derive(Debug, Clone, Default)]
pub struct Options {}

pub fn generate(_model: &Model, _sources: &SourceMap, _options: &Options) -> String {
    String::new()
}
