# TAP helpers for the shell tests (source it): ok, not_ok NAME [DETAILS], skip NAME WHY
# check NAME COMMAND... and install_or_bail; $failed counts the failures, $n the cases so far.
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
# install_or_bail BUILD DESTDIR PLAN: the case "meson install into a scratch DESTDIR";
# when it fails, the other cases of a PLAN-case run are skipped and the script exits 1.
install_or_bail() {
  local out i
  # DESTDIR from the environment: meson before 0.57 has no --destdir.
  if out=$(DESTDIR="$2" meson install -C "$1" --no-rebuild 2>&1); then
    ok "meson install into a scratch DESTDIR"
  else
    not_ok "meson install into a scratch DESTDIR" "$(tail -n 20 <<<"$out")"
    for i in $(seq $((n + 1)) "$3"); do skip "installed check $i" "nothing was installed"; done
    exit 1
  fi
}
