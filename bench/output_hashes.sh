#!/usr/bin/env bash
# usage: bench/output_hashes.sh OUTDIR  (SRC=checkout, default this repository)
# Builds the course's site, notebooks (with solutions), the four quiz exports and graded reports of
# three fixture submissions (fixed seed), then writes OUTDIR/hashes.txt (sha256 of every file).
# Run it on two checkouts and diff the hashes: a refactor of the engine must leave them equal.
set -euo pipefail
OUT=$1; rm -rf "$OUT"; mkdir -p "$OUT"
SRC="${SRC:-$(cd "$(dirname "$0")/.." && pwd)}"
cd "$SRC"; export PYTHONPATH="$SRC"
coursegen build --quiet -o "$OUT/site" >"$OUT/build.log" 2>&1
coursegen notebooks --solutions -o "$OUT/notebooks" >"$OUT/nb.log" 2>&1
for f in gift moodle-xml qti json; do coursegen quiz export --format $f -o "$OUT/quiz.$f" >>"$OUT/quiz.log" 2>&1; done
mkdir -p "$OUT/.stub"; for m in alibi attention embedding lm_head positions rope tokens; do cp exercises/$m.py "$OUT/.stub/"; done
for s in correct loops stub; do
  d=tests/fixtures/submissions/$s; [ $s = stub ] && d="$OUT/.stub"
  coursegen grade --seed 7 --gradebook "$OUT/gb-$s.sqlite" --format json -o "$OUT/grade-$s.json" $d >>"$OUT/grade.log" 2>&1 || true
done
cd "$OUT" && find site notebooks quiz.gift quiz.moodle-xml quiz.qti quiz.json grade-*.json -type f -print0 | sort -z | xargs -0 sha256sum > hashes.txt
sha256sum hashes.txt
