#!/usr/bin/env bash
# Regenerates the real_*.diff fixtures with real git (the handcrafted ones are
# committed as-is). Usage: bash tests/redteam/patches/make_real.sh
set -euo pipefail
out="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@t GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@t
export GIT_AUTHOR_DATE="2026-01-01T00:00:00Z" GIT_COMMITTER_DATE="2026-01-01T00:00:00Z"

# fixture NAME, then a shell snippet run in a fresh repo with one base commit.
fixture() {
  local name="$1" snippet="$2" repo="$work/$1"
  git init -q "$repo"
  (
    cd "$repo"
    git config core.protectNTFS false
    git config core.protectHFS false
    mkdir -p src && printf 'base\n' > src/base.txt && printf 'keep\n' > src/keep.txt
    git add -A && git commit -q -m base
    eval "$snippet"
    [ "${NOADD:-}" = 1 ] || git add -A
    # NOBINARY=1: without --binary, as a worker might, so binary changes carry no data.
    local binary=(--binary)
    [ "${NOBINARY:-}" = 1 ] && binary=()
    git diff --cached "${binary[@]}" --full-index -M -C --no-color > "$out/$name.diff"
  )
}

fixture real_case_collision 'printf "a\n" > README; printf "b\n" > readme'
fixture real_nfc_nfd_collision 'printf "a\n" > "$(printf "caf\xc3\xa9")"; printf "b\n" > "$(printf "cafe\xcc\x81")"'
fixture real_dir_case_collision 'mkdir -p Lib lib; printf "a\n" > Lib/a.ts; printf "b\n" > lib/b.ts'
fixture real_device_con 'printf "x\n" > con.txt'
fixture real_device_aux_nested 'mkdir -p src/aux; printf "x\n" > src/aux/index.ts'
fixture real_device_com_superscript 'printf "x\n" > "$(printf "COM\xc2\xb9.log")"'
fixture real_device_conout 'printf "x\n" > "CONOUT\$"'
fixture real_backslash 'printf "x\n" > "src\\evil.txt"'
fixture real_colon_stream 'printf "x\n" > "src/file.txt:stream"'
fixture real_trailing_dot 'printf "x\n" > "notes."'
fixture real_trailing_space 'printf "x\n" > "notes "'
fixture real_short_name 'mkdir -p "GITHUB~1/workflows"; printf "x\n" > "GITHUB~1/workflows/ci.yml"'
NOADD=1 fixture real_gitlink 'git update-index --add --cacheinfo 160000,1111111111111111111111111111111111111111,vendor/lib'
fixture real_forbidden_github_case 'mkdir -p .GitHub/workflows; printf "on: push\n" > .GitHub/workflows/ci.yml'
fixture real_forbidden_github_zwnj 'd="$(printf ".git\xe2\x80\x8chub")"; mkdir -p "$d/workflows"; printf "on: push\n" > "$d/workflows/ci.yml"'
fixture real_outside_allowed 'printf "x\n" > Makefile; printf "y\n" >> src/base.txt'
fixture real_rename_out_of_scope 'mkdir -p lib; git mv src/keep.txt lib/keep.txt'
fixture real_copy_out_of_write_set 'mkdir -p lib; cp src/keep.txt lib/keep.txt; printf "z\n" >> src/keep.txt'
fixture real_symlink_policy 'ln -s /etc/passwd src/passwd'
fixture real_control_char_name 'printf "x\n" > "$(printf "src/a\tb")"'
NOBINARY=1 fixture real_binary_without_data 'printf "y\n" >> src/base.txt; printf "\x00\x01PNG\n" > src/logo.png; printf "\x00\x02" >> src/keep.txt'
