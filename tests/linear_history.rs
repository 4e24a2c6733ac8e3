//! `scripts/linear-history.sh`: the course as a linear history, one tagged
//! commit per chapter. The script runs in a throw-away clone of this
//! repository (never in it), twice, with no git identity configured.

use pretty_assertions::assert_eq;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A directory removed when the test ends, even when it fails.
struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A command that sees neither the caller's git configuration nor git
/// variables (such as those of a hook), only the empty home `home`.
fn command(program: &str, dir: &Path, home: &Path) -> Command {
    let mut cmd = Command::new(program);
    cmd.current_dir(dir)
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home)
        .env("GIT_CONFIG_NOSYSTEM", "1");
    for var in [
        "GIT_DIR",
        "GIT_WORK_TREE",
        "GIT_INDEX_FILE",
        "GIT_OBJECT_DIRECTORY",
        "GIT_CONFIG_GLOBAL",
        "GIT_AUTHOR_NAME",
        "GIT_AUTHOR_EMAIL",
        "GIT_AUTHOR_DATE",
        "GIT_COMMITTER_NAME",
        "GIT_COMMITTER_EMAIL",
        "GIT_COMMITTER_DATE",
        "EMAIL",
    ] {
        cmd.env_remove(var);
    }
    cmd
}

fn run(mut cmd: Command) -> String {
    let out = cmd.output().expect("the command starts");
    assert!(
        out.status.success(),
        "{cmd:?} failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

struct Clone {
    dir: PathBuf,
    home: PathBuf,
}

impl Clone {
    fn git(&self, args: &[&str]) -> String {
        let mut cmd = command("git", &self.dir, &self.home);
        cmd.args(args);
        run(cmd)
    }

    fn lines(&self, args: &[&str]) -> Vec<String> {
        self.git(args).lines().map(str::to_owned).collect()
    }

    fn script(&self, args: &[&str]) -> String {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/linear-history.sh");
        let mut cmd = command("bash", &self.dir, &self.home);
        cmd.arg(script).args(args);
        run(cmd)
    }

    /// The id of every linear-chapterNN tag, by tag name.
    fn tags(&self) -> Vec<(String, String)> {
        self.lines(&[
            "for-each-ref",
            "--format=%(refname:short) %(objectname)",
            "refs/tags/linear-chapter*",
        ])
        .iter()
        .map(|l| {
            let (tag, id) = l.split_once(' ').expect("tag and id");
            (tag.to_owned(), id.to_owned())
        })
        .collect()
    }
}

#[test]
fn one_tagged_standalone_commit_per_chapter() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let is_repo = Command::new("git")
        .args(["rev-parse", "--verify", "--quiet", "HEAD"])
        .current_dir(root)
        .output()
        .is_ok_and(|o| o.status.success());
    if !is_repo {
        eprintln!("skipped: {} is not a git repository", root.display());
        return;
    }
    let python = std::env::var("PYTHON").unwrap_or_else(|_| "python3".to_owned());
    let has_toml = Command::new(&python)
        .args([
            "-c",
            "try:\n import tomllib\nexcept ImportError:\n import tomli",
        ])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_toml {
        eprintln!("skipped: the script needs {python} 3.11 (or tomli), which is not here");
        return;
    }
    let tmp = TempDir(std::env::temp_dir().join(format!(
        "simple-linear-history-{}-{:?}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default()
            .as_nanos()
    )));
    let home = tmp.0.join("home");
    std::fs::create_dir_all(&home).expect("temporary directory");
    let mut clone = command("git", &tmp.0, &home);
    clone.args(["clone", "-q"]).arg(root).arg("repo");
    run(clone);
    let repo = Clone {
        dir: tmp.0.join("repo"),
        home,
    };

    assert!(repo.script(&["--help"]).contains("linear-chapterNN"));

    let head = repo.git(&["rev-parse", "HEAD"]);
    let branch = repo.git(&["symbolic-ref", "-q", "HEAD"]);
    let chapters: Vec<String> = repo
        .lines(&["ls-tree", "--full-tree", "--name-only", "HEAD:chapters"])
        .into_iter()
        .filter(|n| {
            n.len() == 9 && n.starts_with("chapter") && n[7..].bytes().all(|b| b.is_ascii_digit())
        })
        .collect();
    assert!(chapters.len() >= 11, "chapters: {chapters:?}");

    repo.script(&[]);
    let first = repo.tags();
    let names: Vec<&str> = first.iter().map(|(t, _)| t.as_str()).collect();
    let want: Vec<String> = chapters.iter().map(|c| format!("linear-{c}")).collect();
    assert_eq!(names, want);

    // Again, after a stale tag of a chapter that does not exist: the same
    // commits, and the stale tag is gone.
    repo.git(&["tag", "linear-chapter99", "HEAD"]);
    repo.script(&["HEAD"]);
    assert_eq!(repo.tags(), first);

    // The reader's clone is as it was.
    assert_eq!(repo.git(&["rev-parse", "HEAD"]), head);
    assert_eq!(repo.git(&["symbolic-ref", "-q", "HEAD"]), branch);
    assert_eq!(repo.git(&["status", "--porcelain"]), "");

    // One line of history, oldest chapter first.
    let (last, _) = first.last().expect("a tag");
    let history = repo.lines(&["rev-list", "--reverse", "--topo-order", last]);
    let ids: Vec<String> = first.iter().map(|(_, id)| id.clone()).collect();
    assert_eq!(history, ids);

    let in_head = |path: &str| repo.lines(&["ls-tree", "--name-only", "HEAD", path]) == [path];
    for (chapter, (tag, _)) in chapters.iter().zip(&first) {
        let n: u32 = chapter[7..].parse().expect("chapter number");
        let subject = repo.git(&["log", "-1", "--format=%s", tag]);
        assert!(
            subject.starts_with(&format!("Chapter {n}: ")),
            "{tag}: {subject}"
        );

        // The chapter's own files, unchanged, plus the grammar, the
        // .gitignore, and the standalone manifest and lock.
        // (A chapter still without a grammar has no GRAMMAR.md.)
        let grammar = format!("grammar/{chapter}.md");
        let mut added = vec!["Cargo.lock", "Cargo.toml"];
        if in_head(&grammar) {
            added.push("GRAMMAR.md");
            assert_eq!(
                repo.git(&["rev-parse", &format!("{tag}:GRAMMAR.md")]),
                repo.git(&["rev-parse", &format!("HEAD:{grammar}")])
            );
        }
        if in_head(".gitignore") {
            added.insert(0, ".gitignore");
        }
        // A crate the chapter depends on by path (chapter 21 on: isa/)
        // comes along at its repository path.
        let manifest_head = repo.git(&["show", &format!("HEAD:chapters/{chapter}/Cargo.toml")]);
        let mut added: Vec<String> = added.into_iter().map(String::from).collect();
        if manifest_head.contains("path = \"../../isa\"") {
            // Its files, with its manifest made standalone as the chapter's is.
            added.extend(repo.lines(&["ls-tree", "-r", "--name-only", "HEAD", "isa"]));
        }
        let dir = format!("HEAD:chapters/{chapter}");
        let changed = repo.lines(&["diff", "--name-only", &dir, tag]);
        assert_eq!(changed, added, "{tag}");

        let manifest = repo.git(&["show", &format!("{tag}:Cargo.toml")]);
        assert!(!manifest.contains("workspace = true"), "{tag}:\n{manifest}");
        assert!(!manifest.contains(".workspace"), "{tag}:\n{manifest}");
        assert!(manifest.contains("\n[workspace]\n"), "{tag}:\n{manifest}");
        assert!(
            manifest.contains(&format!("name = \"{chapter}\"")),
            "{tag}:\n{manifest}"
        );
        let lock = repo.git(&["show", &format!("{tag}:Cargo.lock")]);
        assert!(lock.contains(&format!("name = \"{chapter}\"")), "{tag}");
        for other in chapters.iter().filter(|c| *c != chapter) {
            assert!(
                !lock.contains(&format!("name = \"{other}\"")),
                "{tag}: {other}"
            );
        }
    }

    let lib = repo.git(&["show", "linear-chapter07:src/lib.rs"]);
    assert!(lib.contains("chapter 7"), "{lib}");

    // What chapter 11 adds, and nothing that it leaves alone.
    let diff: BTreeSet<String> = repo
        .lines(&[
            "diff",
            "--name-only",
            "linear-chapter10",
            "linear-chapter11",
        ])
        .into_iter()
        .collect();
    assert!(diff.contains("src/gcm.rs"), "{diff:?}");
    let mut want: BTreeSet<String> = repo
        .lines(&[
            "diff",
            "--name-only",
            "HEAD:chapters/chapter10",
            "HEAD:chapters/chapter11",
        ])
        .into_iter()
        .collect();
    want.insert("Cargo.lock".to_owned()); // the package's name at least
    if repo.git(&["rev-parse", "HEAD:grammar/chapter10.md"])
        != repo.git(&["rev-parse", "HEAD:grammar/chapter11.md"])
    {
        want.insert("GRAMMAR.md".to_owned());
    }
    assert_eq!(diff, want);
}
