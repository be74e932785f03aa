//! Fuzz target `import`: see `warcdex::testing::import` (src/testing.rs) for what it runs and
//! how the input is read.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    warcdex::testing::import(data);
});
