//! Fuzz target `reader`: see `warcdex::fuzzing::reader` (src/fuzzing.rs) for what it runs and
//! how the input is read.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    warcdex::fuzzing::reader(data);
});
