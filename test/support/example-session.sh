# Sourced before a document's shell examples, which then run as a reader runs them: in
# order, in one terminal. A server command goes to the background (the reader's second
# terminal) once it listens, and is stopped at the end of its block (Ctrl-C).
# Tested this way: `npx pkg reactor serve`, `npx oauth2-mock-server`, `npm start`.
set -euo pipefail
__servers=()
__line=''
# The session's own files (command output, server logs), removed at the end.
__own="$(mktemp -d)"
__output="$__own/output"
: >"$__output"
trap 'echo "[examples] failed at $__line: $BASH_COMMAND" >&2' ERR

# Each command as a terminal shows it, and where it comes from.
__run() {
  __line="$1"
  printf '$ %s\n' "$2"
}

__block() {
  __block_at="$1"
  __block_started="$(date +%s%N)"
  echo "[examples] block $1"
}

__block_end() {
  __stop_servers
  echo "[examples] block $__block_at took $(( ($(date +%s%N) - __block_started) / 1000000 )) ms"
}

# The port a server command listens on: --port N or -p N, else the reactor's 8864.
__port_of() {
  local previous=''
  for argument in "$@"; do
    if [ "$previous" = '--port' ] || [ "$previous" = '-p' ]; then echo "$argument"; return; fi
    previous="$argument"
  done
  echo 8864
}

__listening() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# Starts a server in its own process group and waits until it listens on its port.
__background() {
  local port="$1"
  shift
  if __listening "$port"; then echo "[examples] port $port is taken before $__line starts its server" >&2; return 1; fi
  local log
  log="$(mktemp -p "$__own")"
  setsid "$@" >"$log" 2>&1 &
  local pid=$!
  __servers+=("$pid")
  for _ in $(seq 1 600); do
    if __listening "$port" && [ -s "$log" ]; then
      sleep 0.2
      cat "$log"
      return 0
    fi
    if ! kill -0 "$pid" 2>/dev/null; then
      cat "$log"
      echo "[examples] the server of $__line exited before it listened on port $port" >&2
      return 1
    fi
    sleep 0.1
  done
  cat "$log"
  echo "[examples] nothing listens on port $port 60 s after $__line" >&2
  return 1
}

__stop_servers() {
  local pid
  for pid in "${__servers[@]}"; do kill -TERM -- "-$pid" 2>/dev/null || true; done
  for pid in "${__servers[@]}"; do wait "$pid" 2>/dev/null || true; done
  __servers=()
}
# A keyring the examples made for themselves has an agent to stop.
__finish() {
  __stop_servers
  rm -rf "$__own"
  if [ -n "${GNUPGHOME:-}" ] && [ "${GNUPGHOME#"$EXAMPLES_SCRATCH"}" != "$GNUPGHOME" ]; then gpgconf --kill all 2>/dev/null || true; fi
}
trap __finish EXIT

npm() {
  case "${1:-}" in
    # The test runs after CI's clean install, and is itself part of `npm test`.
    install | test) echo "[examples] npm $1: done by CI around this test" ;;
    start) __background 8864 npm start ;;
    *) command npm "$@" ;;
  esac
}

npx() {
  if { [ "${1:-}" = pkg ] && [ "${2:-}" = reactor ] && [ "${3:-}" = serve ]; } || [ "${1:-}" = oauth2-mock-server ]; then
    __background "$(__port_of "$@")" npx "$@"
  else
    command npx "$@"
  fi
}

# A command whose output is checked failed: its output, then where it was.
__failed() {
  local status=$?
  __show
  echo "[examples] failed at $__line (exit $status)" >&2
  exit 1
}

# `# prints TEXT`: what the command printed holds TEXT.
__show() {
  cat "$__output"
  if [ -n "$(tail -c 1 "$__output")" ]; then echo; fi
}

__prints() {
  __show
  if ! grep -qF -- "$1" "$__output"; then
    echo "[examples] $__line should print: $1" >&2
    return 1
  fi
}

# A transcript's output: each shown line, in order (`...` stands for lines left out),
# with this directory shown as `.../scratch` and runs of spaces as one.
__transcript() {
  __show
  local actual rest line
  actual="$(sed "s|$PWD|.../scratch|g" "$__output" | tr -s ' ')"
  rest="$actual"
  while IFS= read -r line; do
    line="$(printf '%s' "$line" | tr -s ' ')"
    [ "$line" = '...' ] && continue
    if [[ "$rest" != *"$line"* ]]; then
      echo "[examples] $__line should print, in this order: $line" >&2
      return 1
    fi
    rest="${rest#*"$line"}"
  done
}
