#!/usr/bin/env bash
# Regenerates every generated file into a scratch tree and fails if any differs from
# the committed one, proving the checked-in assembly comes from the generators.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d gen ] || { echo "check-generate: no gen/ yet"; exit 0; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
(cd gen && go run . -out "$tmp")
status=0
while IFS= read -r f; do
	rel=${f#"$tmp"/}
	if ! cmp -s "$f" "$rel"; then echo "check-generate: $rel differs from its generator's output (run make generate)"; status=1; fi
done < <(find "$tmp" -type f)
exit $status
