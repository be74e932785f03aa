//! Fuzz target `query`: see `warcdex::testing::query` (src/testing.rs) for what it runs and
//! how the input is read.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    warcdex::testing::query(data);
});
