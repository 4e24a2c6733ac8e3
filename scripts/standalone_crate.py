#!/usr/bin/env python3
"""Make one crate of the course's workspace buildable on its own.

Helper of scripts/linear-history.sh, which calls it once for all chapters
(and once per crate a chapter depends on by path); it reads only the files
it is given (taken by the script from a commit) and writes into the OUT_DIRs,
so it never looks at a working tree.

  standalone_crate.py chapter WORKSPACE_TOML (CARGO_LOCK|-) (CRATE_DIR CRATE_TOML OUT_DIR)...
      For each crate, write into its OUT_DIR:
      Cargo.toml   CRATE_TOML with every field it inherits from the
                   workspace (`edition.workspace = true`, `indexmap.workspace
                   = true`, `x = { workspace = true, features = [...] }`,
                   `[lints] workspace = true`) replaced by the value in
                   WORKSPACE_TOML's [workspace.package], [workspace.dependencies]
                   or [workspace.lints], and an empty [workspace] table at the
                   end (with the workspace's resolver), so that cargo treats
                   the crate as a workspace of its own;
      paths        the crates it depends on by path, one repository path a
                   line (resolved from CRATE_DIR, the crate's directory in the
                   repository, e.g. chapters/chapter07): the caller copies each
                   into the snapshot at that same path, and Cargo.toml points
                   there;
      Cargo.lock   CARGO_LOCK keeping only the packages that the crate reaches,
                   written the way cargo writes them, so that building the
                   snapshot uses the workspace's versions and leaves the file
                   as it is (but for one case: if the workspace turned on
                   features of a dependency that the snapshot does not, cargo
                   drops the packages only those features needed; no version
                   changes);
      description  the package's description without its "Simple chapter N: ".
  standalone_crate.py member WORKSPACE_TOML CRATE_DIR CRATE_TOML OUT_DIR
      The same for a crate that a chapter depends on by path: OUT_DIR/Cargo.toml
      (no [workspace] table: it is a member of the chapter's workspace, its
      path dependencies unchanged) and OUT_DIR/paths.

Only the line of each changed entry is rewritten; everything else (order,
comments) is kept. The result is parsed again and compared with the
intended manifest, so an unexpected form fails loudly instead of producing
a wrong file. Needs Python 3.11 (tomllib), or 3.9 with the tomli package.
"""

import copy
import functools
import json
import posixpath
import re
import sys

try:
    import tomllib
except ModuleNotFoundError:
    try:
        import tomli as tomllib
    except ModuleNotFoundError:
        sys.exit(
            "standalone_crate.py: needs Python 3.11 or later (tomllib), "
            "or the tomli package (apt-get install python3-tomli)"
        )

DEP_TABLES = ("dependencies", "dev-dependencies", "build-dependencies")
BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")
LINE_KEY = re.compile(r'^\s*(?:"([^"]+)"|([A-Za-z0-9_-]+))\s*[.=]')


def fail(msg):
    sys.exit(f"standalone_crate.py: {msg}")


def warn(msg):
    print(f"standalone_crate.py: warning: {msg}", file=sys.stderr)


def read(path):
    with open(path, encoding="utf-8", newline="") as f:
        return f.read()


def toml_key(k):
    return k if BARE_KEY.match(k) else json.dumps(k, ensure_ascii=False)


def toml_value(v):
    """A value as inline TOML (strings, booleans, numbers, arrays, tables)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        if not v:
            return "{}"
        items = ", ".join(f"{toml_key(k)} = {toml_value(x)}" for k, x in v.items())
        return "{ " + items + " }"
    fail(f"cannot write {v!r} as TOML")


def inherits(v):
    return isinstance(v, dict) and v.get("workspace") is True


def dep_tables(doc):
    """(section path, table) of every dependency table, target-specific ones too."""
    for name in DEP_TABLES:
        if isinstance(doc.get(name), dict):
            yield (name,), doc[name]
    for cfg, table in doc.get("target", {}).items():
        for name in DEP_TABLES:
            if isinstance(table.get(name), dict):
                yield ("target", cfg, name), table[name]


def section_of(line):
    """The key path of a table header line ([a.b] or [[a]]), else None."""
    s = line.strip()
    if not s.startswith("["):
        return None
    try:
        d = tomllib.loads(s + "\n")
    except tomllib.TOMLDecodeError:
        return None
    path = []
    while d:
        if len(d) != 1:
            return None
        ((k, v),) = d.items()
        path.append(k)
        d = v[0] if isinstance(v, list) and v else v
        if not isinstance(d, dict):
            return None
    return tuple(path)


def get_path(doc, path):
    for k in path:
        doc = doc.get(k) if isinstance(doc, dict) else None
    return doc if isinstance(doc, dict) else None


def merge_dep(name, workspace_dep, own):
    """Cargo's rule: the workspace's entry, plus the crate's own keys; features add up."""
    if workspace_dep is None:
        fail(f"dependency {name!r} inherits from the workspace, which does not list it")
    dep = {"version": workspace_dep} if isinstance(workspace_dep, str) else dict(workspace_dep)
    if "path" in dep:
        dep["path"] = ("workspace", dep["path"])
    for k, v in own.items():
        if k == "workspace":
            continue
        if k == "features":
            dep["features"] = dep.get("features", []) + [f for f in v if f not in dep.get("features", [])]
        else:
            dep[k] = v
    return dep


def manifest(ws_path, crate_path, crate_dir, as_member):
    """The standalone manifest's text, its package and the path dependencies to copy."""
    ws_doc = tomllib.loads(read(ws_path)).get("workspace", {})
    w_package = ws_doc.get("package", {})
    w_deps = ws_doc.get("dependencies", {})
    text = read(crate_path)
    doc = tomllib.loads(text)
    if "workspace" in doc and not as_member:
        fail(f"{crate_path} already has a [workspace] table")
    crate_dir = posixpath.normpath(crate_dir)

    want = copy.deepcopy(doc)
    package = want.get("package", {})
    for k, v in list(package.items()):
        if inherits(v):
            if k not in w_package:
                fail(f"package.{k} inherits from the workspace, which does not set it")
            package[k] = w_package[k]
    package.pop("workspace", None)  # `workspace = "../.."`: the way to the root
    if inherits(want.get("lints")):
        want["lints"] = ws_doc.get("lints", {})

    copies = []
    for _, table in dep_tables(want):
        for name, v in table.items():
            if inherits(v):
                v = table[name] = merge_dep(name, w_deps.get(name), v)
            if isinstance(v, dict) and "path" in v:
                p = v["path"]
                repo_path = posixpath.normpath(p[1] if isinstance(p, tuple) else posixpath.join(crate_dir, p))
                if repo_path == "." or repo_path.startswith("../") or repo_path == ".." or posixpath.isabs(repo_path):
                    fail(f"path dependency {name!r} ({repo_path}) is not a crate inside the repository")
                inside = repo_path.startswith(crate_dir + "/")
                if as_member or inside:
                    # Same place relative to this crate in the snapshot as in the repository.
                    v["path"] = posixpath.relpath(repo_path, crate_dir)
                else:
                    # This crate is the snapshot's root: the dependency goes to its repository path.
                    v["path"] = repo_path
                if not inside and repo_path not in copies:
                    copies.append(repo_path)
            if isinstance(v, dict) and set(v) == {"version"}:
                table[name] = v["version"]

    out = rewrite_lines(text, doc, want)
    if not as_member:
        resolver = ws_doc.get("resolver")
        out = out.rstrip("\n") + "\n\n# Its own workspace: this crate is built alone, not as part of the course's.\n[workspace]\n"
        if resolver is not None:
            out += f"resolver = {toml_value(resolver)}\n"
    got = tomllib.loads(out)
    if not as_member:
        got.pop("workspace", None)
    if got != want:
        fail(f"could not rewrite {crate_path} (an unexpected form?):\n{out}")
    return out, doc.get("package", {}), copies


def rewrite_lines(text, doc, want):
    """Rewrite the lines of the entries whose values differ between doc and want."""
    out, section, done = [], (), set()
    for line in text.splitlines(keepends=True):
        header = section_of(line)
        if header is not None:
            section = header
            out.append(line)
            continue
        m = LINE_KEY.match(line)
        old, new = get_path(doc, section), get_path(want, section)
        if m is None or old is None or new is None:
            out.append(line)
            continue
        key = m.group(1) or m.group(2)
        if key not in old or old.get(key) == new.get(key, object()):
            out.append(line)
            continue
        eol = "\r\n" if line.endswith("\r\n") else "\n"
        if (section, key) not in done:
            done.add((section, key))
            if key in new:
                out.append(f"{toml_key(key)} = {toml_value(new[key])}{eol}")
            # Keys that replace this one (`[lints] workspace = true`) go here.
            for k, v in new.items():
                if k not in old and (section, k) not in done:
                    done.add((section, k))
                    out.append(f"{toml_key(k)} = {toml_value(v)}{eol}")
        # Further lines of a dotted entry (x.workspace = true / x.features = [..]) go.
    return "".join(out)


@functools.cache
def load_lock(lock_path):
    """The lock file's text, its packages and their texts (None if not in the expected form)."""
    text = read(lock_path)
    data = tomllib.loads(text)
    packages = data.get("package", [])
    header, *bodies = text.split("\n[[package]]\n")
    usable = set(data) <= {"version", "package"} and len(bodies) == len(packages)
    usable = usable and all(
        (b := tomllib.loads(body)).get("name") == p["name"] and b.get("version") == p["version"]
        for body, p in zip(bodies, packages)
    )
    return text, packages, header, bodies if usable else None


def prune_lock(lock_path, root):
    """The text of the lock file at lock_path with only what package root reaches."""
    text, packages, header, bodies = load_lock(lock_path)
    local = [i for i, p in enumerate(packages) if p["name"] == root and "source" not in p]
    if bodies is None or not local:
        warn(f"{lock_path}: {'unexpected form' if bodies is None else 'no package ' + root}; kept whole")
        return text

    by_name = {}
    for i, p in enumerate(packages):
        by_name.setdefault(p["name"], []).append(i)

    def find(dep):
        name, version, source = re.fullmatch(r"(\S+)(?: (\S+))?(?: \((.+)\))?", dep).groups()
        hits = [
            i
            for i in by_name.get(name, [])
            if version in (None, packages[i]["version"]) and source in (None, packages[i].get("source"))
        ]
        if len(hits) != 1:
            fail(f"{lock_path}: cannot tell which package {dep!r} is")
        return hits[0]

    keep, todo = set(), local[:1]
    while todo:
        i = todo.pop()
        if i not in keep:
            keep.add(i)
            todo.extend(find(d) for d in packages[i].get("dependencies", []))
    kept = sorted(keep)

    # Cargo names a dependency by name alone when the lock has one package of
    # that name, adds the version when it has several, and the source when a
    # version comes from several: pruning can make the short forms enough.
    names, versions = {}, {}
    for i in kept:
        p = packages[i]
        names[p["name"]] = names.get(p["name"], 0) + 1
        versions[p["name"], p["version"]] = versions.get((p["name"], p["version"]), 0) + 1

    def encode(m):
        p = packages[find(m.group(2))]
        if names[p["name"]] == 1:
            dep = p["name"]
        elif versions[p["name"], p["version"]] == 1:
            dep = f"{p['name']} {p['version']}"
        else:
            dep = f"{p['name']} {p['version']} ({p['source']})"
        return f'{m.group(1)}"{dep}",'

    out = header + "".join("\n[[package]]\n" + re.sub(r'(?m)^(\s+)"([^"]+)",$', encode, bodies[i]) for i in kept)
    if [p["name"] for p in tomllib.loads(out)["package"]] != [packages[i]["name"] for i in kept]:
        fail(f"{lock_path}: pruning went wrong")
    return out


def save(out_dir, name, text):
    with open(posixpath.join(out_dir, name), "w", encoding="utf-8", newline="") as f:
        f.write(text)


def chapter(args):
    if len(args) < 5 or (len(args) - 2) % 3:
        fail("usage: chapter WORKSPACE_TOML (CARGO_LOCK|-) (CRATE_DIR CRATE_TOML OUT_DIR)...")
    ws_path, lock_path = args[:2]
    for i in range(2, len(args), 3):
        crate_dir, crate_path, out_dir = args[i : i + 3]
        text, package, copies = manifest(ws_path, crate_path, crate_dir, as_member=False)
        save(out_dir, "Cargo.toml", text)
        save(out_dir, "paths", "".join(p + "\n" for p in copies))
        desc = re.sub(r"^Simple chapter \d+:\s*", "", package.get("description", "").strip())
        save(out_dir, "description", desc + "\n")
        if lock_path != "-":
            save(out_dir, "Cargo.lock", prune_lock(lock_path, package["name"]))


def member(args):
    if len(args) != 4:
        fail("usage: member WORKSPACE_TOML CRATE_DIR CRATE_TOML OUT_DIR")
    ws_path, crate_dir, crate_path, out_dir = args
    text, _, copies = manifest(ws_path, crate_path, crate_dir, as_member=True)
    save(out_dir, "Cargo.toml", text)
    save(out_dir, "paths", "".join(p + "\n" for p in copies))


def main():
    commands = {"chapter": chapter, "member": member}
    if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help"):
        print(__doc__)
    elif len(sys.argv) < 2 or sys.argv[1] not in commands:
        fail("usage: standalone_crate.py (chapter|member) ...; see --help")
    else:
        commands[sys.argv[1]](sys.argv[2:])


if __name__ == "__main__":
    main()
