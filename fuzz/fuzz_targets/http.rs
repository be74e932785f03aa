//! Fuzz target `http`: see `warcdex::fuzzing::http` (src/fuzzing.rs) for what it runs and
//! how the input is read.
#![no_main]

libfuzzer_sys::fuzz_target!(init: { warcdex::fuzzing::http_init(); }, |data: &[u8]| {
    warcdex::fuzzing::http(data);
});
