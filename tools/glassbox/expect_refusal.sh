# Sourced by the plug-in tests: expect_refusal TEXT ARGS... runs
# "$glassbox" ARGS... and wants exit 1 and one stderr line containing TEXT
# (scratch files in "$work").
expect_refusal() {
  want=$1
  shift
  status=0
  "$glassbox" "$@" 2>"$work/err" >"$work/out" || status=$?
  if [ "$status" -ne 1 ] || [ "$(wc -l <"$work/err")" -ne 1 ] || ! grep -qF -- "$want" "$work/err"; then
    echo "$(basename "$0"): glassbox $* exited $status, wanted 1 and one line with: $want"
    cat "$work/err"
    exit 1
  fi
}
