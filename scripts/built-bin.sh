# Sourced by the scripts that run the warcdex binary: builds it and says where cargo put
# it. The place is cargo's own answer (its build messages name the executable), so
# CARGO_TARGET_DIR, CARGO_BUILD_TARGET_DIR and a .cargo/config.toml's build.target-dir
# are followed, as a shared target directory on a developer's or a CI machine needs.
#
#   bin=$(built_bin)                 # release
#   bin=$(built_bin release-lto)     # another profile

built_bin() {
    local profile=${1:-release} json path features=()
    # The dev build is the one `cargo test` made, whose lib has the `testing` feature (the
    # tests' dev-dependency on this crate): asked for without it, cargo compiled the whole
    # lib and binary again, two minutes of every CI run (the binary behaves the same).
    [ "$profile" = dev ] && features=(--features testing)
    json=$(cargo build --profile "$profile" --locked --quiet "${features[@]}" --bin warcdex --message-format=json) || return 1
    path=$(printf '%s\n' "$json" | grep -o '"executable":"[^"]*/warcdex"' | tail -n 1 | cut -d'"' -f4)
    if [ -z "$path" ] || [ ! -x "$path" ]; then
        echo "built-bin.sh: cargo built no warcdex executable for profile $profile" >&2
        return 1
    fi
    printf '%s\n' "$path"
}
