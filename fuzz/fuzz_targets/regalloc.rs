#![no_main]
//! See `isa_fuzz::regalloc` for what this target checks.

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    isa_fuzz::regalloc::check(data);
});
