# Sourced by the bootstrap scripts. with_progress LABEL COMMAND...: runs COMMAND in the foreground
# and, while it works, prints "LABEL: still running (N s)" to stderr every CAUDAL_PROGRESS_EVERY
# seconds (10 by default), so a first run never sits silent for a minute. Returns COMMAND's status.
# Whole lines only, terminal or not: a line redrawn in place (a spinner) would run into COMMAND's
# own output. COMMAND draws none either (npm: .npmrc progress=false).
with_progress() {
  local label=$1
  shift
  local every=${CAUDAL_PROGRESS_EVERY:-10}
  (
    elapsed=0
    # sleep's own output is not the terminal's: an orphaned sleep must not hold a pipe open.
    while sleep "$every" </dev/null >/dev/null 2>&1; do
      elapsed=$((elapsed + every))
      echo "$label: still running (${elapsed} s)" >&2
    done
  ) &
  local ticker=$!
  local status=0
  "$@" || status=$?
  kill "$ticker" 2>/dev/null
  wait "$ticker" 2>/dev/null || true
  return "$status"
}
