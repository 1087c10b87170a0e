#!/usr/bin/env bash
# The README's quick start on a fresh machine:
#   bash scripts/quickstart.sh gateway   set everything up, then run the gateway with the managed browser
#   bash scripts/quickstart.sh test      set everything up, then run the whole test suite
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

mode="${1:-}"
case "$mode" in
  gateway|test) ;;
  *) echo "usage: bash scripts/quickstart.sh gateway|test" >&2; exit 2 ;;
esac

say() { printf 'quickstart: %s\n' "$*" >&2; }

# A Chromium-based browser: keep the one the machine has; otherwise install Debian's Chromium.
have_browser() {
  local b
  for b in google-chrome google-chrome-stable chromium chromium-browser brave-browser microsoft-edge microsoft-edge-stable; do
    command -v "$b" >/dev/null 2>&1 && return 0
  done
  for b in /opt/google/chrome/chrome "/Applications/Google Chrome.app" "/Applications/Chromium.app" \
           "/Applications/Brave Browser.app" "/Applications/Microsoft Edge.app"; do
    [ -e "$b" ] && return 0
  done
  return 1
}

if ! have_browser; then
  if command -v apt-get >/dev/null 2>&1; then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    say "no Chromium-based browser found; installing Debian's chromium"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium >/dev/null
  else
    say "no Chromium-based browser found: install Chrome, Chromium, Brave or Edge, or set browser.executablePath"
    exit 1
  fi
fi

# npm packages, exactly as locked; `npm ci` also builds (the prepare script).
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  say "installing npm packages (npm ci)"
  err=$(mktemp)
  if ! npm ci --no-audit --no-fund 2>"$err"; then
    if grep -q "package.json and package-lock.json or npm-shrinkwrap.json are in sync" "$err"; then
      # npm 11 as set up here leaves other platforms' optional packages out of the lockfile it writes,
      # then `npm ci` refuses that same lockfile. `npm install --no-save` installs the locked versions.
      say "npm ci refused the lockfile over other platforms' optional packages; installing the locked versions"
      npm install --no-save --no-audit --no-fund
    else
      cat "$err" >&2
      rm -f "$err"
      exit 1
    fi
  fi
  rm -f "$err"
else
  npm run --silent build
fi

if [ "$mode" = test ]; then
  exec npm test
fi

# The quick start drives the managed browser: make `svc` the default profile unless one is chosen.
if ! bin/svc config get browser.defaultProfile >/dev/null 2>&1; then
  bin/svc config set browser.defaultProfile svc
fi
exec bin/svc gateway run --start-browser
