#!/usr/bin/env bash
# Checks that the C++ sources follow .clang-format. Only checks: it never
# rewrites a file (run `clang-format -i FILE` yourself). Prints each file
# that differs with the first lines of its diff; exits 1 if any does.
#
# usage: scripts/check_format.sh [FILE...]   (default: every tracked .h/.cc)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"

# Files left out of the check (generated code would go here).
excluded=()

formatter=$(command -v clang-format || command -v clang-format-14 || true)
if [[ -z "$formatter" ]]; then
  echo "check_format: clang-format is not installed (scripts/setup.sh installs it)" >&2
  exit 2
fi

if [[ $# -gt 0 ]]; then
  files=("$@")
else
  mapfile -t files < <(git ls-files '*.h' '*.cc')
fi

is_excluded() {
  local pattern
  for pattern in "${excluded[@]}"; do
    # shellcheck disable=SC2053  # the pattern is a glob on purpose
    [[ $1 == $pattern ]] && return 0
  done
  return 1
}

bad=0
for file in "${files[@]}"; do
  is_excluded "$file" && continue
  if ! diff_text=$("$formatter" --style=file "$file" | diff -u "$file" - 2>&1); then
    echo "$file: not formatted (clang-format -i $file):"
    echo "$diff_text" | sed -n '3,12p'
    bad=1
  fi
done
if [[ $bad -ne 0 ]]; then
  echo "check_format: files above differ from .clang-format" >&2
  exit 1
fi
echo "check_format: ${#files[@]} files checked, all formatted"
