#!/bin/sh
# RateLab: the server-clock limiter script from a shell (redis-cli; Debian: redis-tools).
#   @COMMAND@ > ratelab.lua
#   REDIS_URL=redis://localhost:6379 RATELAB_SCRIPT=ratelab.lua sh caller.sh user:42 3
set -eu
LAYERS=@LAYERS@
SCRIPT=${RATELAB_SCRIPT:-ratelab.lua}
URL=${REDIS_URL:-redis://localhost:6379}
ID=${1:-user:42}
N=${2:-1}

cli() {
  case "$URL" in
    unix://*) redis-cli -s "${URL#unix://}" "$@" ;;
    *) redis-cli -u "$URL" "$@" ;;
  esac
}

# One key per layer, all with the same {hash tag}: one slot in Redis Cluster. The keys are the
# positional parameters, so an ID with spaces stays one key.
if [ "$LAYERS" -eq 1 ]; then set -- "rl:{$ID}"; else
  set --; i=1; while [ "$i" -le "$LAYERS" ]; do set -- "$@" "rl:{$ID}:$i"; i=$((i + 1)); done
fi

SHA=$(cli SCRIPT LOAD "$(cat "$SCRIPT")") # once; EVALSHA then sends 40 bytes

# respond prints the status line and headers from the script's 13 numbers.
respond() {
  if [ "$1" -eq 1 ]; then echo "HTTP/1.1 200 OK"; else echo "HTTP/1.1 429 Too Many Requests"; fi
  echo "X-RateLimit-Limit: $5"
  echo "X-RateLimit-Remaining: $2"
  echo "X-RateLimit-Reset: $8"
  echo "RateLimit: \"default\";r=$2;t=$7"
  if [ "$1" -eq 0 ] && [ "$4" -gt 0 ]; then echo "Retry-After: $4"; fi # -1: no wait helps
  echo
}

# decision succeeds iff the reply is the script's 13 numbers, one a line. redis-cli exits 0 on an
# error reply (WRONGTYPE, OOM, a script error), whose words must not become a 429 and its headers.
decision() {
  [ "$(printf '%s\n' "$1" | wc -l)" -eq 13 ] && ! printf '%s\n' "$1" | grep -qvx -- '-\{0,1\}[0-9]\{1,\}'
}

n=0
while [ "$n" -lt "$N" ]; do
  OUT=$(cli EVALSHA "$SHA" "$LAYERS" "$@" 1)
  case "$OUT" in
    NOSCRIPT*) OUT=$(cli EVAL "$(cat "$SCRIPT")" "$LAYERS" "$@" 1) ;; # restarted or failed over
  esac
  if ! decision "$OUT"; then
    echo "caller.sh: Redis answered an error, not a decision: $OUT" >&2
    exit 1
  fi
  # shellcheck disable=SC2086 # the 13 numbers, one a line
  respond $OUT
  n=$((n + 1))
done
