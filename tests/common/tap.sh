# TAP helpers for the shell tests (source it): ok, not_ok NAME [DETAILS], skip NAME WHY
# and check NAME COMMAND...; $failed counts the failures, $n the cases so far.
n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() {
  n=$((n + 1)); failed=$((failed + 1))
  echo "not ok $n - $1"
  [ -z "${2:-}" ] || sed 's/^/# /' <<<"$2"
}
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }
# check NAME COMMAND...: one case from a command's status, its output shown on failure.
check() {
  local name=$1 out
  shift
  if out=$("$@" 2>&1); then ok "$name"; else not_ok "$name" "$out"; fi
}
