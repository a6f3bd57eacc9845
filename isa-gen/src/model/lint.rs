//! Lints: inconsistencies that do not stop generation, reported as located warnings.

use super::Model;
use crate::diag::Diagnostics;
use crate::source::SourceMap;

pub fn run(_model: &Model, _sources: &SourceMap, _diags: &mut Diagnostics) {}
