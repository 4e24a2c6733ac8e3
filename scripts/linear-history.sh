#!/usr/bin/env bash
# linear-history.sh: the course as a linear history, one commit per chapter.
#
# Usage: scripts/linear-history.sh [REVISION]     (default: HEAD)
#        scripts/linear-history.sh --help
#
# The course keeps every chapter side by side (chapters/chapterNN), which is
# good for building and testing them all, but a reader often wants to read it
# the way the Java course is read: each chapter a snapshot that can be
# checked out and diffed against the one before. This script builds that in
# your own clone: one commit per chapter, each the child of the one before,
# tagged linear-chapterNN, so that
#
#     git diff linear-chapter10 linear-chapter11    # what chapter 11 adds
#     git checkout linear-chapter07                 # chapter 7 alone
#     cargo test                                    # ...and it builds alone
#
# Each commit holds the files of chapters/chapterNN at the top level
# (Cargo.toml, README.md, README.ja.md, src/, tests/, docs/ ...), the
# chapter's grammar (grammar/chapterNN.md) as GRAMMAR.md, the workspace's
# .gitignore, and the workspace's Cargo.lock cut down to the packages the
# chapter uses, so a checkout builds with the same versions. The chapter's
# Cargo.toml no longer inherits from the workspace (the [workspace.package]
# fields and [workspace.dependencies] entries it uses are written in, and an
# empty [workspace] table makes it its own workspace); crates it depends on
# by path (such as isa/) come along at their repository path. That rewriting
# is done by scripts/standalone_crate.py (Python 3.11, or 3.9 with tomli;
# set PYTHON to use another interpreter than python3).
#
# Everything comes from REVISION's commit, never from the working tree:
# chapters are those listed under chapters/ in that commit, so new chapters
# are picked up without changing this script. The commits are made with git
# plumbing (a temporary index, commit-tree) under a fixed author, committer
# and dates, so the same revision always gives the same commit ids, in any
# clone, with or without a git identity configured. Your working tree, index
# and branches are not touched; the script only adds objects, (re)points the
# linear-chapterNN tags, and deletes linear-chapterNN tags of chapters that
# REVISION does not have. It makes no branch: check out a tag, or make one
# yourself (git switch -c reading linear-chapter07).
set -euo pipefail

usage() {
  sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p;}' "$0"
}

rev=HEAD
case $# in
  0) ;;
  1)
    case $1 in
      -h | --help) usage; exit 0 ;;
      -*) echo "linear-history.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
      *) rev=$1 ;;
    esac
    ;;
  *) echo "linear-history.sh: at most one revision (see --help)" >&2; exit 2 ;;
esac

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
helper=$here/standalone_crate.py
python=${PYTHON:-python3}
command -v "$python" >/dev/null 2>&1 || { echo "linear-history.sh: needs $python (set PYTHON to another Python 3)" >&2; exit 1; }
git rev-parse --git-dir >/dev/null || exit 1
commit=$(git rev-parse --verify --quiet "$rev^{commit}") || { echo "linear-history.sh: no commit $rev" >&2; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/linear-history.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# The chapters: directories chapters/chapterNN of the commit, in order.
chapters=()
while IFS=$'\t' read -r info name; do
  [[ $info == *" tree "* && $name =~ ^chapter[0-9][0-9]$ ]] && chapters+=("$name")
done < <(git ls-tree --full-tree "$commit:chapters" 2>/dev/null || true)
((${#chapters[@]})) || { echo "linear-history.sh: $rev has no chapters/chapterNN" >&2; exit 1; }

git show "$commit:Cargo.toml" >"$tmp/workspace.toml"
lock=
if git cat-file -e "$commit:Cargo.lock" 2>/dev/null; then
  lock=$tmp/workspace.lock
  git show "$commit:Cargo.lock" >"$lock"
fi

gitignore=$(git rev-parse --verify --quiet "$commit:.gitignore" || true)

# Fixed identity and dates: the same inputs give the same commit ids.
export GIT_AUTHOR_NAME="Simple course" GIT_AUTHOR_EMAIL="linear-history@simple-course.invalid"
export GIT_COMMITTER_NAME="Simple course" GIT_COMMITTER_EMAIL="linear-history@simple-course.invalid"
export GIT_INDEX_FILE="$tmp/index"
base_date=946684800 # 2000-01-01T00:00:00Z; chapter N is N minutes later

blob() { git hash-object -w --no-filters "$1"; }
add() { git update-index --add --cacheinfo "100644,$1,$2"; }

# The chapters' standalone manifests, locks and descriptions, in one go.
args=()
for ch in "${chapters[@]}"; do
  mkdir "$tmp/$ch"
  git show "$commit:chapters/$ch/Cargo.toml" >"$tmp/$ch/crate.toml"
  args+=("chapters/$ch" "$tmp/$ch/crate.toml" "$tmp/$ch")
done
"$python" "$helper" chapter "$tmp/workspace.toml" "${lock:--}" "${args[@]}"

parent=
made=()
for ch in "${chapters[@]}"; do
  n=$((10#${ch#chapter}))
  dir=chapters/$ch
  rm -f "$GIT_INDEX_FILE"
  git read-tree "$commit:$dir"

  # The chapter's manifest and lock, then the crates it reaches by path.
  out=$tmp/$ch
  add "$(blob "$out/Cargo.toml")" Cargo.toml
  [[ -n $lock ]] && add "$(blob "$out/Cargo.lock")" Cargo.lock
  todo=()
  while IFS= read -r p; do todo+=("$p"); done <"$out/paths"
  seen=" "
  i=0
  while ((i < ${#todo[@]})); do
    p=${todo[i]}
    i=$((i + 1))
    [[ $seen == *" $p "* ]] && continue
    seen+="$p "
    if git cat-file -e "$commit:$dir/${p%%/*}" 2>/dev/null; then
      echo "linear-history.sh: $dir depends on $p, which clashes with the chapter's own ${p%%/*}" >&2
      exit 1
    fi
    git read-tree --prefix="$p/" "$commit:$p"
    m=$out/member$i
    mkdir "$m"
    git show "$commit:$p/Cargo.toml" >"$m/crate.toml"
    "$python" "$helper" member "$tmp/workspace.toml" "$p" "$m/crate.toml" "$m"
    add "$(blob "$m/Cargo.toml")" "$p/Cargo.toml"
    while IFS= read -r q; do todo+=("$q"); done <"$m/paths"
  done

  # The workspace's .gitignore keeps target/ out of git status in a checkout.
  if [[ -n $gitignore ]] && ! git cat-file -e "$commit:$dir/.gitignore" 2>/dev/null; then
    add "$gitignore" .gitignore
  fi
  if git cat-file -e "$commit:grammar/$ch.md" 2>/dev/null; then
    add "$(git rev-parse "$commit:grammar/$ch.md")" GRAMMAR.md
  else
    echo "linear-history.sh: warning: no grammar/$ch.md" >&2
  fi
  tree=$(git write-tree)

  desc=$(cat "$out/description")
  msg="Chapter $n${desc:+: $desc}

The files of $dir, with grammar/$ch.md as GRAMMAR.md, made buildable
on their own by scripts/linear-history.sh."
  date="@$((base_date + 60 * n)) +0000"
  parents=()
  [[ -n $parent ]] && parents=(-p "$parent")
  new=$(GIT_AUTHOR_DATE=$date GIT_COMMITTER_DATE=$date \
    git -c i18n.commitEncoding=UTF-8 commit-tree --no-gpg-sign "$tree" ${parents[@]+"${parents[@]}"} -m "$msg")
  git update-ref -m "linear-history.sh $rev" "refs/tags/linear-$ch" "$new"
  printf 'linear-%s %s %s\n' "$ch" "$(git rev-parse --short "$new")" "${msg%%$'\n'*}"
  made+=("refs/tags/linear-$ch")
  parent=$new
done

# Tags of chapters this revision does not have would not be on this line.
while read -r ref; do
  [[ ${ref#refs/tags/linear-} =~ ^chapter[0-9][0-9]$ ]] || continue
  [[ " ${made[*]} " == *" $ref "* ]] && continue
  git update-ref -d "$ref"
  echo "deleted ${ref#refs/tags/} (no such chapter in $rev)"
done < <(git for-each-ref --format='%(refname)' 'refs/tags/linear-chapter*')
