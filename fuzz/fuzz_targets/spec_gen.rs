#![no_main]
//! See `isa_fuzz::spec` for what this target checks.

libfuzzer_sys::fuzz_target!(|data: &[u8]| isa_fuzz::spec::check_gen(data));
