#!/bin/sh
# tools/rpi/pin.sh — print hash-pinned requirement lines for tools/rpi/requirements*.txt: sh tools/rpi/pin.sh NAME==VERSION ...
# Run on any machine with pip and network. For each NAME==VERSION it downloads, from
# PyPI only (no pip.conf, no piwheels: a file from another index has another hash),
# the files pip may take on a Pi: the sdist, and the wheels for aarch64 with Python
# 3.11 (Raspberry Pi OS 12) and 3.13 (13), which include a pure-Python wheel; then
# prints "NAME==VERSION --hash=sha256:..." with `pip hash` of each file. The
# packages a pin pulls in need lines too: `pip download -r FILE` on the result
# fails on any that has none (--require-hashes mode).
set -eu

PY=${PY:-python3}
[ $# -gt 0 ] || { echo "usage: sh $0 NAME==VERSION ..." >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fetch() {  # fetch DIR SPEC [pip download options]: quiet, a missing kind of file is no error
    d=$1; spec=$2; shift 2
    PIP_CONFIG_FILE=/dev/null "$PY" -m pip --isolated download -q --no-deps --disable-pip-version-check \
        --index-url https://pypi.org/simple -d "$d" "$@" "$spec" >/dev/null 2>&1 || true
}

for spec in "$@"; do
    case "$spec" in *==*) ;; *) echo "pin.sh: $spec: give an exact version, NAME==VERSION" >&2; exit 2 ;; esac
    d="$tmp/$(printf '%s' "$spec" | tr -c 'A-Za-z0-9.' '_')"
    mkdir -p "$d"
    fetch "$d" "$spec" --no-binary :all:
    for py in 3.11 3.13; do
        for plat in manylinux2014_aarch64 manylinux_2_28_aarch64; do
            fetch "$d" "$spec" --only-binary :all: --platform "$plat" --python-version "$py"
        done
    done
    [ -n "$(ls "$d")" ] || { echo "pin.sh: no file of $spec on PyPI" >&2; exit 1; }
    line=$spec
    for h in $("$PY" -m pip hash "$d"/* | sed -n 's/^--hash=//p' | sort); do
        line="$line --hash=$h"
    done
    printf '%s\n' "$line"
done
