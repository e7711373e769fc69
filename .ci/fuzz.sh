#!/usr/bin/env bash
# Runs every Fuzz target in the module for the given time each.
set -euo pipefail
cd "$(dirname "$0")/.."
t=${1:-30s}
grep -rl --include='*_test.go' '^func Fuzz' . | while read -r f; do
	dir=$(dirname "$f")
	for fn in $(grep -o '^func Fuzz[A-Za-z0-9_]*' "$f" | cut -d' ' -f2); do
		echo "fuzz $dir $fn ($t)"
		go test -run '^$' -fuzz "^$fn\$" -fuzztime "$t" "$dir"
	done
done
