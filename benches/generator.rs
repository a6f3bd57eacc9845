//! Time of the generator on the whole spec, from in-memory text (no file I/O):
//!
//! * `generator/parse_check`: parse, resolve, validate and lint (`Spec::check`);
//! * `generator/generate`: code generation alone, from an already checked spec;
//! * `generator/parse_check_generate`: both, what `build.rs` does after reading files;
//! * `generator/generate_skip_docs`: code generation without the rustdoc taken from the
//!   spec's prose (`codegen::Options::skip_docs`), to show what the docs cost.
//!
//! Run with `cargo bench --bench generator` (see `benches/README.md`).

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use isa_gen::codegen::{self, Options};
use isa_gen::{Checked, Spec};

fn check(texts: &[(&'static str, &'static str)]) -> Checked {
    let checked = Spec::from_texts(texts.iter().copied()).check();
    assert!(!checked.has_errors(), "{}", checked.render_diagnostics());
    checked
}

fn benches(c: &mut Criterion) {
    // The spec files, loaded once (embedded by `isa-spec`), outside the timed code.
    let texts: Vec<(&'static str, &'static str)> =
        isa_spec::FILES.iter().map(|f| (f.name, f.text)).collect();
    let bytes: usize = texts.iter().map(|(_, t)| t.len()).sum();
    let checked = check(&texts);
    let code = checked.generate().expect("a checked spec generates");
    eprintln!(
        "spec: {} files, {bytes} bytes; generated: {} bytes, {} lines",
        texts.len(),
        code.len(),
        code.lines().count()
    );

    let mut g = c.benchmark_group("generator");
    // Whole-spec runs take milliseconds: fewer, longer samples.
    g.sample_size(10);
    g.throughput(Throughput::Bytes(bytes as u64));
    g.bench_function("parse_check", |b| b.iter(|| check(black_box(&texts))));
    g.bench_function("generate", |b| b.iter(|| black_box(&checked).generate()));
    g.bench_function("parse_check_generate", |b| {
        b.iter(|| check(black_box(&texts)).generate())
    });
    let no_docs = Options {
        skip_docs: true,
        ..Options::default()
    };
    let model = checked.model.as_ref().expect("checked");
    g.bench_function("generate_skip_docs", |b| {
        b.iter(|| codegen::generate(black_box(model), &checked.sources, &no_docs))
    });
    g.finish();
}

criterion_group!(generator, benches);
criterion_main!(generator);
