//! Generates the typed ISA API from the spec files in `isa-spec/` into `OUT_DIR`.
//! A spec error fails the build with the rendered diagnostics.

use std::path::Path;

fn main() {
    let dir = Path::new(isa_spec::DIR);
    println!("cargo:rerun-if-changed={}", dir.display());
    let files = isa_gen::spec_files(&[dir]).unwrap_or_else(|e| fail(&e.to_string()));
    for f in &files {
        println!("cargo:rerun-if-changed={}", f.display());
    }
    // Name the files as `isa-spec/<file>` in diagnostics and in the generated docs,
    // not by the absolute path of this build.
    let mut spec = isa_gen::Spec::default();
    for f in &files {
        let bytes = std::fs::read(f).unwrap_or_else(|e| fail(&format!("{}: {e}", f.display())));
        let name = f.file_name().map_or_else(
            || f.display().to_string(),
            |n| format!("isa-spec/{}", n.to_string_lossy()),
        );
        spec.sources.add_bytes(name, Some(f), bytes);
    }
    let checked = spec.check();
    if checked.has_errors() {
        fail(&checked.render_diagnostics());
    }
    let model = checked
        .model
        .as_ref()
        .unwrap_or_else(|| fail("isa-gen produced no model"));
    // The crate's features choose what is generated (see Cargo.toml).
    let feature = |name: &str| std::env::var_os(format!("CARGO_FEATURE_{name}")).is_some();
    let options = isa_gen::codegen::Options {
        export_macros: true,
        skip_docs: !feature("DOCS"),
        skip_asm: !feature("ASM"),
        skip_metadata: !feature("METADATA"),
        // `isa::inst!` and `isa::code!`, for the bundled spec (embedded in isa-spec).
        macros: feature("INST").then(|| isa_gen::codegen::Macros {
            spec: Vec::new(),
            root: "crate".into(),
            export: true,
        }),
    };
    let code = isa_gen::codegen::generate(model, &checked.sources, &options);
    let out = Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("isa.rs");
    std::fs::write(&out, code).unwrap_or_else(|e| fail(&format!("{}: {e}", out.display())));
}

fn fail(message: &str) -> ! {
    eprintln!("{message}");
    std::process::exit(1);
}
