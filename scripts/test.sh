#!/usr/bin/env bash
# The test command of README.md, and what .ci/run calls, so that CI proves
# the README on a fresh machine.
#
# Usage: scripts/test.sh [--help]
#
# Every test needs more than the Rust toolchain: the isa crate's feature
# test-support builds unicorn-engine (C code built with cmake, bindings made
# by bindgen through libclang), isa's tests check encodings with LLVM 14's
# llvm-mc, and chapter 21 links its ELF objects with C and runs them: x86-64
# natively, AArch64 and RISC-V with the cross gcc (static) under qemu-user.
# First this installs what is missing: the Debian/Ubuntu packages cmake,
# libclang-dev, llvm, qemu-user, gcc-aarch64-linux-gnu,
# gcc-riscv64-linux-gnu, libc6-dev-arm64-cross and libc6-dev-riscv64-cross
# with apt-get when run as root (otherwise it prints the sudo line to run
# and stops), and the rustup components rustfmt and clippy. Then it runs
# cargo fmt --check, clippy with -D warnings and cargo test of the whole
# workspace with all features, stopping at the first failure with its exit
# status.
set -euo pipefail
shopt -s nullglob
cd "$(dirname "$0")/.."

if [[ ${1:-} == -h || ${1:-} == --help ]]; then
  sed -n '2,/^set /{/^set /d;s/^# \{0,1\}//;p}' "$0"
  exit 0
fi

# bindgen loads libclang the way clang-sys finds it ($LIBCLANG_PATH, else
# libclang.so, libclang-*.so or libclang[-*].so.*, but not libclang-cpp, in
# /usr/lib*, /usr/local/lib* and two levels below), and libclang then needs
# clang's own headers (stdbool.h), which Debian ships apart from it.
have_libclang() {
  [[ -n ${LIBCLANG_PATH:-} ]] && return 0
  local lib libs=() headers=(/usr{/local,}/lib*{/llvm-*/lib,}/clang/*/include/stdbool.h)
  for lib in {/usr/local/llvm*/lib*,/usr{/local,}/lib*{/*/*,/*,}}/libclang{.so,-*.so,.so.*,-*.so.*}; do
    [[ -e $lib && $lib != *-cpp.* ]] && libs+=("$lib")
  done
  ((${#libs[@]} && ${#headers[@]}))
}

# The places where isa/tests/llvm_roundtrip.rs looks for llvm-mc.
have_llvm_mc() {
  [[ -n ${LLVM_MC:-} || -e /usr/bin/llvm-mc || -e /usr/bin/llvm-mc-14 || -e /usr/lib/llvm-14/bin/llvm-mc ]] ||
    command -v llvm-mc >/dev/null
}

missing_packages() {
  command -v cmake >/dev/null || echo cmake
  have_libclang || echo libclang-dev
  have_llvm_mc || echo llvm
  # Chapter 21: each package by the command or file its tests use (the
  # C library archives, since the cross links are static).
  { command -v qemu-aarch64 && command -v qemu-riscv64; } >/dev/null || echo qemu-user
  command -v aarch64-linux-gnu-gcc >/dev/null || echo gcc-aarch64-linux-gnu
  command -v riscv64-linux-gnu-gcc >/dev/null || echo gcc-riscv64-linux-gnu
  [[ -e /usr/aarch64-linux-gnu/lib/libc.a ]] || echo libc6-dev-arm64-cross
  [[ -e /usr/riscv64-linux-gnu/lib/libc.a ]] || echo libc6-dev-riscv64-cross
}

mapfile -t missing < <(missing_packages)
if ((${#missing[@]})); then
  if ((EUID != 0)); then
    echo "test.sh: missing ${missing[*]}; install them and run this again:" >&2
    echo "  sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
  echo "test.sh: installing ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  mapfile -t missing < <(missing_packages)
  if ((${#missing[@]})); then
    echo "test.sh: still missing after apt-get install: ${missing[*]}" >&2
    exit 1
  fi
fi
cargo fmt --version >/dev/null 2>&1 || rustup component add rustfmt
cargo clippy --version >/dev/null 2>&1 || rustup component add clippy

# Each step echoes itself; set -e stops at the first failure, with its status.
step() { echo "test.sh: $*"; "$@"; }
step cargo fmt --all -- --check
step cargo clippy --workspace --all-targets --all-features -- -D warnings
step cargo test --workspace --all-features
echo "test.sh: all passed in ${SECONDS}s" >&2
