# Sourced by the test-image fetch scripts (fetch-testdata.sh and fetch-rgb.sh here):
# the cache's lock, a failure remembered for a while,
# and packages unpacked with apt-get download + dpkg-deb -x, never installed.

# fetch_start CACHE SUBDIR FAILED LOCK WHAT: sets cache (made absolute), images
# (CACHE/SUBDIR) and failed (CACHE/FAILED); holds CACHE/LOCK until the script ends,
# so that parallel callers take turns. Exits 0 when images already holds a MANIFEST,
# 1 when an earlier WHAT (e.g. "fetch") failed less than 10 minutes ago.
fetch_start() {
  mkdir -p "$1"
  cache=$(cd "$1" && pwd)
  images="$cache/$2"
  failed="$cache/$3"
  exec 9>"$cache/$4"
  flock 9
  [ -f "$images/MANIFEST" ] && exit 0
  if [ -f "$failed" ] && [ -n "$(find "$failed" -mmin -10 2>/dev/null)" ]; then
    echo "an earlier $5 failed (retried after 10 minutes): $(cat "$failed")" >&2
    exit 1
  fi
}

# fetch_fail MESSAGE: remembers the failure (fetch_start reads it) and exits 1.
fetch_fail() {
  echo "$*" > "$failed"
  echo "$*" >&2
  exit 1
}

# fetch_need TOOL...: fails unless every tool is installed.
fetch_need() {
  local tool
  for tool in "$@"; do
    command -v "$tool" >/dev/null 2>&1 || fetch_fail "$tool is not installed (scripts/setup installs it)"
  done
}

# fetch_workdir NAME: sets work, a scratch folder in the cache removed on exit, and
# staging ($work/images) with an empty MANIFEST, published by fetch_publish.
fetch_workdir() {
  work=$(mktemp -d "$cache/$1.XXXXXX")
  trap 'rm -rf "$work"' EXIT
  staging="$work/images"
  mkdir -p "$staging"
  : > "$staging/MANIFEST"
}

# fetch_package PKG: downloads PKG into $work and unpacks it into $work/root.
fetch_package() {
  local pkg=$1
  # The package lists may be missing on a fresh machine; refresh them once as root.
  if ! apt-cache show "$pkg" >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ]; then
    apt-get update -qq >/dev/null 2>&1 || true
  fi
  (cd "$work" && apt-get download -q=2 -o Acquire::Retries=1 -o Acquire::http::Timeout=30 \
      -o APT::Sandbox::User=root "$pkg" >"$work/apt-$pkg.log" 2>&1) ||
    fetch_fail "apt-get download $pkg failed: $(tail -n 2 "$work/apt-$pkg.log" | tr '\n' ' ')"
  dpkg-deb -x "$work"/"$pkg"_*.deb "$work/root" || fetch_fail "dpkg-deb -x $pkg failed"
}

# fetch_publish: replaces images with the staging folder and forgets any failure.
fetch_publish() {
  rm -rf "$images" "$failed"
  mv "$staging" "$images"
}
