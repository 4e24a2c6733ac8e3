//! `spill-stats` (chapter 21) agrees with its expectations file, with
//! coalescing and without, and prints both groups and the totals.

use std::process::Command;

fn spill_stats(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_spill-stats"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("spill-stats runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn spill_stats_matches_its_expectations() {
    for args in [&[][..], &["--no-coalesce"][..]] {
        let (ok, stdout, stderr) = spill_stats(args);
        assert!(ok, "spill-stats {args:?} failed:\n{stderr}");
        assert!(stdout.contains("total chapter20: 39 compiles"), "{stdout}");
        assert!(stdout.contains("total chapter21: 52 compiles"), "{stdout}");
        assert!(stdout.contains("total: 91 compiles"), "{stdout}");
    }
}

#[test]
fn coalescing_removes_copies() {
    let total = |args: &[&str]| -> (u64, u64) {
        let (_, stdout, _) = spill_stats(args);
        let line = stdout
            .lines()
            .find(|l| l.starts_with("total:"))
            .expect("a total line")
            .to_owned();
        let nums: Vec<u64> = line
            .split(|c: char| !c.is_ascii_digit())
            .filter_map(|w| w.parse().ok())
            .collect();
        (nums[1], nums[2])
    };
    let (with, without) = (total(&[]), total(&["--no-coalesce"]));
    assert!(
        with.0 < without.0 && with.1 < without.1,
        "{with:?} {without:?}"
    );
}
