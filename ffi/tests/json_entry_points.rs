//! Every seed of the `ffi_json` fuzz target (`fuzz/seeds/ffi_json/`: one input per JSON entry
//! point of the C ABI, and every input a fuzzing run found) through the same harness, as an
//! ordinary test: each must return a defined result code, never `FERRITE_RESULT_PANIC`, and
//! text that is UTF-8 (JSON where documented). The test command also runs it under Miri
//! (`cargo +nightly miri test -p ferrite-ffi --test json_entry_points`), which checks the
//! ABI's unsafe code (pointers, lengths, ownership of returned buffers, callbacks) for
//! undefined behaviour as these calls exercise it.

#[path = "json_entry_points/harness.rs"]
mod harness;

#[test]
fn every_seed_of_the_ffi_json_fuzz_target_passes_the_abi_checks() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/seeds/ffi_json");
    let mut seeds: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a seed").path())
        .collect();
    seeds.sort();
    assert!(seeds.len() >= 20, "the seeds are missing: {}", dir.display());
    for seed in seeds {
        let data = std::fs::read(&seed).expect("a readable seed");
        harness::run(&data);
    }
    harness::free_server();
}
