use std::path::Path;

use super::*;

fn rules(text: &str, embargo: Option<&str>) -> Rules {
    let list = read_list(Path::new("t.aclj"), text).unwrap();
    let e = embargo.map(|j| Embargo::from_json(&serde_json::from_str(j).unwrap()).unwrap());
    Rules::new(list, None, e, Vec::new())
}

fn access(r: &Rules, url: &str, date: u64, user: Option<&str>) -> &'static str {
    let key = warcdex_cdx::surt::surt_key(url).unwrap();
    r.decide(key.as_bytes(), date, &r.class_of(user), 1_700_000_000)
        .access
        .name()
}

/// pywb's manual's example (docs/manual/access-control.rst).
#[test]
fn the_longest_prefix_decides_as_in_pywbs_manual() {
    let r = rules(
        "org,httpbin)/anything/something - {\"access\": \"allow\"}\n\
         org,httpbin)/anything - {\"access\": \"exclude\"}\n\
         org,httpbin)/ - {\"access\": \"block\"}\n\
         com, - {\"access\": \"allow\"}\n",
        None,
    );
    let d = 20200101000000;
    assert_eq!(
        access(&r, "http://httpbin.org/anything/something", d, None),
        "allow"
    );
    assert_eq!(
        access(&r, "http://httpbin.org/anything/else", d, None),
        "exclude"
    );
    assert_eq!(access(&r, "http://httpbin.org/", d, None), "block");
    assert_eq!(access(&r, "http://httpbin.org/get?a=b", d, None), "block");
    assert_eq!(access(&r, "http://example.com/", d, None), "allow");
    assert_eq!(access(&r, "http://example.net/", d, None), "allow");
}

#[test]
fn a_users_rule_wins_among_lines_of_one_key_only() {
    let r = rules(
        "com,example)/staff - {\"access\": \"block\"}\n\
         com,example)/ - {\"access\": \"allow\", \"user\": \"staff\"}\n\
         com,example)/ - {\"access\": \"exclude\"}\n",
        None,
    );
    let d = 20200101000000;
    assert_eq!(access(&r, "http://example.com/a", d, None), "exclude");
    assert_eq!(
        access(&r, "http://example.com/a", d, Some("staff")),
        "allow"
    );
    assert_eq!(
        access(&r, "http://example.com/a", d, Some("visitor")),
        "exclude"
    );
    // The longer key names no user: it decides for the staff too.
    assert_eq!(
        access(&r, "http://example.com/staff/x", d, Some("staff")),
        "block"
    );
}

#[test]
fn exact_rules_and_the_wildcard() {
    let r = rules(
        "com,example)/a### - {\"access\": \"block\"}\n*, - {\"access\": \"exclude\"}\n",
        None,
    );
    let d = 20200101000000;
    assert_eq!(access(&r, "http://example.com/a", d, None), "block");
    assert_eq!(access(&r, "http://example.com/ab", d, None), "exclude");
    // pywb reaches `*,` only when no rule lies between it and the key's TLD.
    let r = rules(
        "*, - {\"access\": \"exclude\"}\nbiz,x)/ - {\"access\": \"block\"}\n",
        None,
    );
    assert_eq!(access(&r, "http://a.com/", d, None), "allow");
    assert_eq!(access(&r, "http://a.aero/", d, None), "exclude");
}

#[test]
fn dates_of_rules_and_the_embargo() {
    let r = rules(
        "com,example)/old - {\"access\": \"block\", \"before\": \"2010\"}\n\
         com,example)/free - {\"access\": \"allow_ignore_embargo\"}\n",
        Some("{\"after\": \"20200101\"}"),
    );
    assert_eq!(
        access(&r, "http://example.com/old", 20101231000000, None),
        "block"
    );
    assert_eq!(
        access(&r, "http://example.com/old", 20110101000000, None),
        "allow"
    );
    assert_eq!(
        access(&r, "http://example.com/x", 20200101235959, None),
        "allow"
    );
    assert_eq!(
        access(&r, "http://example.com/x", 20200102000000, None),
        "exclude"
    );
    assert_eq!(
        access(&r, "http://example.com/free", 20250102000000, None),
        "allow"
    );
    // `newer` counts back from the moment asked (1,700,000,000: 2023-11-14).
    let r = rules(
        "",
        Some("{\"newer\": {\"years\": 1}, \"access\": \"block\"}"),
    );
    assert_eq!(access(&r, "http://a.org/", 20221115000000, None), "block");
    assert_eq!(access(&r, "http://a.org/", 20221113000000, None), "allow");
    assert!(r.relative());
}

#[test]
fn a_bad_line_is_named() {
    let e = read_list(
        Path::new("r.aclj"),
        "com, - {\"access\": \"allow\"}\ncom,x)/ - {\"access\": \"blok\"}\n",
    )
    .unwrap_err();
    assert_eq!(e.line, 2);
    assert!(
        e.to_string().starts_with("r.aclj:2: access \"blok\""),
        "{e}"
    );
    assert!(read_list(Path::new("r.aclj"), "com,x)/ {\"access\": \"block\"}").is_err());
}

#[test]
fn rules_reread_when_a_file_changes() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("a.aclj");
    std::fs::write(&f, "com,example)/ - {\"access\": \"block\"}\n").unwrap();
    let live = LiveRules::load(RulesConfig {
        acl_paths: vec![dir.path().to_path_buf()],
        ..RulesConfig::default()
    })
    .unwrap();
    let key = b"com,example)/";
    let now = warcdex_cdx::date::now_seconds();
    assert_eq!(
        live.current()
            .decide(key, 20200101000000, &UserClass::Public, now)
            .access,
        Access::Block
    );
    assert!(!live.refresh().unwrap());
    std::fs::write(
        &f,
        "com,example)/ - {\"access\": \"allow\"}\n# a takedown lifted\n",
    )
    .unwrap();
    assert!(live.refresh().unwrap());
    assert_eq!(
        live.current()
            .decide(key, 20200101000000, &UserClass::Public, now)
            .access,
        Access::Allow
    );
    // A broken edit leaves the rules in force.
    std::fs::write(&f, "com,example)/ - {\"access\": \"nope\"}\n").unwrap();
    assert!(live.refresh().is_err());
    assert_eq!(
        live.current()
            .decide(key, 20200101000000, &UserClass::Public, now)
            .access,
        Access::Allow
    );
    // A list added to the directory counts.
    std::fs::write(
        dir.path().join("b.aclj"),
        "com,example)/a - {\"access\": \"exclude\"}\n",
    )
    .unwrap();
    std::fs::write(&f, "# the takedown lifted\n").unwrap();
    assert!(live.refresh().unwrap());
    assert_eq!(
        live.current()
            .decide(b"com,example)/a", 20200101000000, &UserClass::Public, now)
            .access,
        Access::Exclude
    );
}

/// A rules file rewritten in place is read while it is empty or half
/// written; such a reading keeps the rules in force, and the finished file is read.
#[test]
fn a_rules_file_read_while_rewritten_keeps_the_rules_in_force() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("a.aclj");
    let lines: Vec<String> = (b'a'..=b'f')
        .rev()
        .map(|c| format!("com,example)/{} - {{\"access\": \"exclude\"}}\n", c as char))
        .collect();
    std::fs::write(&f, lines.concat()).unwrap();
    std::fs::write(
        dir.path().join("b.aclj"),
        "org,example)/ - {\"access\": \"block\"}\n",
    )
    .unwrap();
    let live = LiveRules::load(RulesConfig {
        acl_paths: vec![dir.path().to_path_buf()],
        ..RulesConfig::default()
    })
    .unwrap();
    let now = warcdex_cdx::date::now_seconds();
    let of = |key: &[u8]| {
        live.current()
            .decide(key, 20200101000000, &UserClass::Public, now)
            .access
    };
    assert_eq!(of(b"com,example)/a"), Access::Exclude);
    // Truncated to nothing (and then to a blank line), as `>` and an editor's save do.
    for empty in ["", "\n"] {
        std::fs::write(&f, empty).unwrap();
        let e = live.refresh().unwrap_err();
        assert!(e.to_string().contains("empty"), "{e}");
        assert_eq!(of(b"com,example)/a"), Access::Exclude);
        assert_eq!(of(b"org,example)/"), Access::Block);
    }
    // Half written: most of the rules would be gone.
    std::fs::write(&f, lines[..2].concat()).unwrap();
    let e = live.refresh().unwrap_err();
    assert!(e.to_string().contains("of 7 rules"), "{e}");
    assert_eq!(of(b"com,example)/a"), Access::Exclude);
    // The write finished: one rule lifted on purpose is read.
    std::fs::write(&f, lines[..5].concat()).unwrap();
    assert!(live.refresh().unwrap());
    assert_eq!(live.current().rule_count(), 6);
    assert_eq!(of(b"com,example)/a"), Access::Allow);
    assert_eq!(of(b"com,example)/b"), Access::Exclude);
}
