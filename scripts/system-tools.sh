#!/usr/bin/env bash
# Before `npm test`: the system tools the tests drive as real components (zip tools,
# openssl, gpg, htpasswd, nginx, Chromium, sqlite3, curl, PostgreSQL's server). What is missing is installed
# from Debian's packages when this can (root with apt-get); otherwise it stops at once with
# one line naming what to install, so no test fails obscurely for a missing tool.
# With --bench (before `npm run bench`): wrk as well, the load generator of the benchmarks.
set -euo pipefail
for_what="npm test"

# command|Debian package (a path for tools outside the usual PATH of a user)
tools=(
  unzip\|unzip zip\|zip python3\|python3 openssl\|openssl gpg\|gnupg gpgconf\|gnupg
  htpasswd\|apache2-utils /usr/sbin/nginx\|nginx sqlite3\|sqlite3 curl\|curl setsid\|util-linux
  "${CHROMIUM_PATH:-/usr/bin/chromium}|chromium"
  # The tests run their own PostgreSQL server (initdb into a temporary directory).
  "$(compgen -G '/usr/lib/postgresql/*/bin/initdb' | head -1 || echo /usr/lib/postgresql/bin/initdb)|postgresql"
)
if [ "${1:-}" = "--bench" ]; then
  tools+=(wrk\|wrk)
  for_what="npm run bench"
fi
missing=()
for tool in "${tools[@]}"; do
  command="${tool%%|*}"
  package="${tool#*|}"
  if [[ "$command" == /* ]]; then [ -x "$command" ] && continue; else command -v "$command" >/dev/null 2>&1 && continue; fi
  [[ " ${missing[*]} " == *" $package "* ]] || missing+=("$package")
done
[ "${#missing[@]}" -eq 0 ] && exit 0

if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "Installing the system tools $for_what drives: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  exit 0
fi
echo "$for_what needs these Debian packages: ${missing[*]} (sudo apt-get install ${missing[*]}), then run it again" >&2
exit 1
