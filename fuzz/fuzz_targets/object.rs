#![no_main]
//! See `isa_fuzz::object` for what this target checks.

libfuzzer_sys::fuzz_target!(|data: &[u8]| isa_fuzz::object::check(data));
