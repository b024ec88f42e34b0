#!/bin/sh
# Installs the Caudal agent as a systemd service, for one project of one Caudal server.
# The server made this script (GET /api/edge/projects/{id}/linux-install): it carries a one-time
# enrollment code, which the agent trades for its own token on its first start. Keep the script
# private until then; a supervisor can revoke the code, and the script then stops working.
#
#   sudo sh caudal-agent-install.sh               install, or upgrade in place (keeps the data
#                                                 and an existing enrollment)
#   sudo sh caudal-agent-install.sh --uninstall   remove the agent, keep its data
#   sudo sh caudal-agent-install.sh --purge       remove the agent and its data
#
# Options:
#   --dry-run        print the steps, change nothing
#   --root DIR       install under DIR instead of / (made when missing): no system user and no ownership changes, and
#                    systemctl only through $SYSTEMCTL when that is set (images, tests)
#   --arch ARCH      x86_64 or aarch64, for another machine's files (with --root); default: uname -m
#   --serial         Modbus RTU on /dev/tty*: the service joins the dialout group
#
# Steps: download the agent for this machine's architecture with the enrollment code (curl or
# wget), verify its SHA-256, install it as /opt/caudal-agent/caudal-agent, create the caudal-agent
# system user, write /etc/caudal-agent/agent.json (0600, owned by caudal-agent), install
# /etc/systemd/system/caudal-agent.service, then enable and (re)start it.
set -eu

CAUDAL_SERVER_URL=@CAUDAL_SERVER_URL@
CAUDAL_PROJECT_ID=@CAUDAL_PROJECT_ID@
CAUDAL_ENROLLMENT_CODE=@CAUDAL_ENROLLMENT_CODE@
CAUDAL_ENROLLMENT_EXPIRES_AT=@CAUDAL_ENROLLMENT_EXPIRES_AT@
CAUDAL_AGENT_VERSION=@CAUDAL_AGENT_VERSION@
CAUDAL_SHA256_X86_64=@CAUDAL_SHA256_X86_64@
CAUDAL_SHA256_AARCH64=@CAUDAL_SHA256_AARCH64@

PROG=caudal-agent-install
SERVICE=caudal-agent
SERVICE_USER=caudal-agent

say() { printf '==> %s\n' "$*"; }
note() { printf '    %s\n' "$*"; }
die() {
  printf '%s: error: %s\n' "$PROG" "$*" >&2
  exit 1
}

usage() {
  cat <<'CAUDAL_END_USAGE'
usage: sh caudal-agent-install.sh [--uninstall | --purge] [--dry-run] [--root DIR]
                                  [--arch x86_64|aarch64] [--serial]
  (no option)   install the Caudal agent, or upgrade it in place
  --uninstall   remove the agent, its configuration and its unit; keep its data
  --purge       remove everything, the data and the caudal-agent user included
  --dry-run     print the steps without changing anything
  --root DIR    install under DIR: no user or ownership changes, systemctl only through $SYSTEMCTL
  --arch ARCH   the architecture to install for (with --root); default: this machine's
  --serial      let the service open serial ports (adds it to the dialout group)
CAUDAL_END_USAGE
}

action=install
dry_run=0
root=
arch=
serial=0
while [ $# -gt 0 ]; do
  case $1 in
    --uninstall) [ "$action" = purge ] || action=uninstall ;;
    --purge) action=purge ;;
    --dry-run) dry_run=1 ;;
    --root)
      [ $# -ge 2 ] || die "--root needs a directory"
      root=$2
      shift
      ;;
    --root=*) root=${1#--root=} ;;
    --arch)
      [ $# -ge 2 ] || die "--arch needs x86_64 or aarch64"
      arch=$2
      shift
      ;;
    --arch=*) arch=${1#--arch=} ;;
    --serial) serial=1 ;;
    -h | --help)
      usage
      exit 0
      ;;
    *)
      usage >&2
      die "unknown option $1"
      ;;
  esac
  shift
done

# --root: a staging directory, never the running system.
staged=0
created_root=0
if [ -n "$root" ]; then
  # A staging folder that does not exist yet is made for an install (an image build's empty tree);
  # one that was made here is removed again if the download is refused.
  if [ ! -d "$root" ]; then
    [ ! -e "$root" ] || die "--root $root: not a directory"
    [ "$action" = install ] || die "--root $root: no such directory, so nothing is installed there"
    if [ "$dry_run" = 1 ]; then
      note "would create $root"
      case $root in /*) ;; *) root=$PWD/$root ;; esac
    else
      mkdir -p "$root" || die "--root $root: cannot create it"
      created_root=1
    fi
  fi
  [ ! -d "$root" ] || root=$(cd "$root" && pwd -P)
  [ "$root" != / ] || root=
  staged=1
fi
if [ "$staged" = 0 ] && [ "$dry_run" = 0 ] && [ "$(id -u)" != 0 ]; then
  die "run it as root (sudo sh $0), or stage the files under a directory with --root DIR"
fi
# Users and ownership are the running system's: only a real install (as root) changes them.
manage_users=0
[ "$staged" = 1 ] || manage_users=1
if [ -n "${SYSTEMCTL:-}" ]; then
  systemctl_cmd=$SYSTEMCTL
elif [ "$staged" = 0 ]; then
  systemctl_cmd=systemctl
else
  systemctl_cmd=
fi

OPT_DIR=$root/opt/caudal-agent
BIN=$OPT_DIR/caudal-agent
ETC_DIR=$root/etc/caudal-agent
CONFIG=$ETC_DIR/agent.json
UNIT_DIR=$root/etc/systemd/system
UNIT=$UNIT_DIR/$SERVICE.service
DATA_DIR=$root/var/lib/caudal-agent
TOKEN=$DATA_DIR/agent-token.json

partial=
created_opt=0
created_opt_parent=0
cleanup() {
  if [ -n "$partial" ]; then
    rm -f "$partial"
    undo_dirs
  fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Runs a command, or prints it under --dry-run.
run() {
  if [ "$dry_run" = 1 ]; then
    note "would run: $*"
    return 0
  fi
  "$@"
}

# $SYSTEMCTL may carry options (SYSTEMCTL="systemctl --root=/mnt"), hence the word splitting.
sysctl() {
  # shellcheck disable=SC2086
  run $systemctl_cmd "$@"
}

# write_file MODE FILE PRODUCER: the producer's output, written to a temporary file (never readable
# by others) and renamed over FILE.
write_file() {
  if [ "$dry_run" = 1 ]; then
    note "would write $2 (mode $1)"
    return 0
  fi
  (umask 077 && "$3" >"$2.tmp.$$")
  chmod "$1" "$2.tmp.$$"
  mv -f "$2.tmp.$$" "$2"
}

# Removes the folders made for a download that was refused, newest first.
undo_dirs() {
  if [ "$created_opt" = 1 ]; then rmdir "$OPT_DIR" 2>/dev/null || true; fi
  if [ "$created_opt_parent" = 1 ]; then rmdir "$root/opt" 2>/dev/null || true; fi
  if [ "$created_root" = 1 ]; then rmdir "$root" 2>/dev/null || true; fi
}

agent_config() {
  cat <<'CAUDAL_END_CONFIG'
@CAUDAL_AGENT_CONFIG@
CAUDAL_END_CONFIG
}

agent_unit() {
  if [ "$serial" = 1 ]; then
    unit_text | sed 's/^#SupplementaryGroups=dialout$/SupplementaryGroups=dialout/'
  else
    unit_text
  fi
}

unit_text() {
  cat <<'CAUDAL_END_UNIT'
@CAUDAL_AGENT_UNIT@
CAUDAL_END_UNIT
}

# The HTTP status of a download of $1 to $2 with the enrollment code ($3 --head: the headers
# only). The code reaches curl and wget through stdin or a private file, never a command line that
# other users can read.
download() {
  if command -v curl >/dev/null 2>&1; then
    printf 'header = "Authorization: Bearer %s"\n' "$CAUDAL_ENROLLMENT_CODE" |
      curl --config - --silent --show-error --location --connect-timeout 20 \
        --retry 3 --retry-delay 2 --retry-max-time 120 ${3:+"$3"} \
        --output "$2" --write-out '%{http_code}' "$1"
  elif command -v wget >/dev/null 2>&1; then
    wgetrc=$(mktemp "${TMPDIR:-/tmp}/caudal-wgetrc.XXXXXX")
    printf 'header = Authorization: Bearer %s\n' "$CAUDAL_ENROLLMENT_CODE" >"$wgetrc"
    # wget exits 8 on an HTTP error status, which is read from its response headers instead.
    WGETRC=$wgetrc wget --server-response --content-on-error --tries=3 --timeout=20 \
      ${3:+--spider} --output-document="$2" "$1" 2>"$wgetrc.log" || true
    awk '$1 ~ /^HTTP\// { status = $2 } END { print (status == "" ? "000" : status) }' "$wgetrc.log"
    rm -f "$wgetrc" "$wgetrc.log"
  else
    die "neither curl nor wget is installed; install one of them (apt-get install curl)"
  fi
}

# refused STATUS BODY_FILE: stops with the server's reason (its JSON message) or a likely one.
refused() {
  reason=
  if [ -n "$2" ] && [ -f "$2" ]; then
    reason=$(sed -n 's/.*"message":"\([^"]*\)".*/\1/p' "$2" | head -n 1)
    rm -f "$2"
  fi
  # wget keeps no body on a 401, and a HEAD request has none.
  if [ -z "$reason" ] && [ "$1" = 401 ]; then
    reason="the enrollment code in this script is expired, revoked or unknown; download a new script"
  fi
  undo_dirs
  if [ "$1" = 000 ]; then
    die "could not reach $CAUDAL_SERVER_URL; nothing was installed"
  fi
  die "the server refused the download (HTTP $1${reason:+: $reason}); nothing was installed"
}

detect_arch() {
  case $(uname -m) in
    x86_64 | amd64) echo x86_64 ;;
    aarch64 | arm64 | armv8*) echo aarch64 ;;
    *) echo unsupported ;;
  esac
}

uninstall() {
  say "Removing the Caudal agent${root:+ from $root}"
  if [ -n "$systemctl_cmd" ]; then
    if [ -f "$UNIT" ]; then
      sysctl disable --now "$SERVICE" || note "$SERVICE was not running"
    fi
  else
    note "not stopping $SERVICE: --root without \$SYSTEMCTL"
  fi
  run rm -f "$UNIT"
  if [ -n "$systemctl_cmd" ]; then sysctl daemon-reload; fi
  run rm -rf "$OPT_DIR" "$ETC_DIR"
  if [ "$action" = purge ]; then
    run rm -rf "$DATA_DIR"
    if [ "$manage_users" = 1 ] && id "$SERVICE_USER" >/dev/null 2>&1; then
      run userdel "$SERVICE_USER"
    fi
    say "The Caudal agent and its data are removed"
  else
    say "The Caudal agent is removed; its data stays in $DATA_DIR (--purge removes it)"
  fi
}

install_agent() {
  host_arch=$(detect_arch)
  if [ -z "$arch" ]; then
    [ "$host_arch" != unsupported ] ||
      die "this machine is $(uname -m); the Caudal agent runs on x86_64 and aarch64"
    arch=$host_arch
  fi
  case $arch in
    x86_64) expected=$CAUDAL_SHA256_X86_64 ;;
    aarch64) expected=$CAUDAL_SHA256_AARCH64 ;;
    *) die "--arch must be x86_64 or aarch64, not $arch" ;;
  esac
  if [ "$arch" != "$host_arch" ] && [ "$staged" = 0 ]; then
    die "--arch $arch is not this machine's architecture ($(uname -m)); use it with --root DIR"
  fi
  [ -n "$expected" ] ||
    die "the server has no $arch build of the agent; ask an administrator to run npm run build:agent, then download this script again"
  command -v sha256sum >/dev/null 2>&1 || die "sha256sum is missing (coreutils or busybox)"
  command -v curl >/dev/null 2>&1 || command -v wget >/dev/null 2>&1 ||
    die "neither curl nor wget is installed; install one of them (apt-get install curl)"

  say "Caudal agent $CAUDAL_AGENT_VERSION for project $CAUDAL_PROJECT_ID ($arch), from $CAUDAL_SERVER_URL"
  if [ "$staged" = 1 ]; then
    note "--root $root: no system user and no ownership changes; files stay owned by $(id -un)"
  fi

  # Never replace the configuration of an enrolled agent: a new code would be ignored at best.
  keep_config=0
  if [ -f "$CONFIG" ]; then
    if [ -f "$TOKEN" ]; then
      keep_config=1
      keep_reason="the agent is enrolled ($TOKEN)"
    elif grep -q '"agent_token"' "$CONFIG"; then
      keep_config=1
      keep_reason="it holds an agent_token"
    fi
  fi
  if [ "$keep_config" = 1 ] && ! grep -q "\"$CAUDAL_PROJECT_ID\"" "$CONFIG"; then
    die "$CONFIG belongs to another project; run this script with --purge first, or use that project's install script"
  fi
  if [ -f "$TOKEN" ] && ! grep -q "\"$CAUDAL_PROJECT_ID\"" "$TOKEN"; then
    die "this agent is enrolled in another project ($TOKEN); run this script with --purge first, or use that project's install script"
  fi

  url=$CAUDAL_SERVER_URL/api/edge/agent/linux-binary/$arch
  # A re-run on a machine that has this build already does not fetch 100 MB again (slow site
  # links); the server still checks the script's code, so a revoked script stops working.
  current=0
  if [ -f "$BIN" ] && [ "$(sha256sum "$BIN" | cut -d ' ' -f 1)" = "$expected" ]; then
    current=1
    say "$BIN is already this build (sha256 $expected): not downloading it again"
  fi
  if [ "$dry_run" = 1 ]; then
    [ "$current" = 1 ] || say "Downloading the agent from $url"
    [ "$current" = 1 ] || note "would download it to $BIN.download and check its SHA-256 ($expected)"
  elif [ "$current" = 1 ]; then
    say "Checking the enrollment code with $CAUDAL_SERVER_URL"
    probe=$(mktemp "${TMPDIR:-/tmp}/caudal-agent-head.XXXXXX")
    if ! status=$(download "$url" "$probe" --head); then
      status=000
    fi
    rm -f "$probe"
    [ "$status" = 200 ] || refused "$status" ""
  else
    say "Downloading the agent from $url"
    # The binary is downloaded beside its final place (same file system, so it is renamed there at
    # once); the folders made for it are removed again if the download is refused.
    if [ ! -d "$root/opt" ]; then
      mkdir "$root/opt"
      created_opt_parent=1
    fi
    if [ ! -d "$OPT_DIR" ]; then
      mkdir "$OPT_DIR"
      created_opt=1
    fi
    partial=$BIN.download
    if ! status=$(download "$url" "$partial"); then
      status=000
    fi
    [ "$status" = 200 ] || refused "$status" "$partial"
    say "Verifying its SHA-256"
    actual=$(sha256sum "$partial" | cut -d ' ' -f 1)
    if [ "$actual" != "$expected" ]; then
      rm -f "$partial"
      undo_dirs
      die "checksum mismatch: expected $expected, got $actual; the download was corrupted or altered on its way, so nothing was installed"
    fi
    note "sha256 $actual: as the server built it"
    chmod 0755 "$partial"
    # A binary that cannot run here (another architecture, a too old C library) is not installed.
    if [ "$arch" = "$host_arch" ]; then
      version=$("$partial" --version) || die "the downloaded agent does not run on this machine; nothing was installed"
      note "$version"
    fi
  fi

  if [ "$manage_users" = 1 ]; then
    if id "$SERVICE_USER" >/dev/null 2>&1; then
      note "user $SERVICE_USER exists"
    else
      say "Creating the system user $SERVICE_USER"
      run useradd --system --user-group --home-dir /var/lib/caudal-agent --no-create-home \
        --shell /usr/sbin/nologin "$SERVICE_USER"
    fi
  fi

  if [ "$current" = 0 ]; then
    say "Installing $BIN"
    run mkdir -p "$OPT_DIR"
    run mv -f "$BIN.download" "$BIN"
    partial=
  fi

  run mkdir -p "$ETC_DIR"
  if [ "$keep_config" = 1 ]; then
    say "Keeping $CONFIG: $keep_reason"
  else
    say "Writing $CONFIG (mode 0600)"
    write_file 0600 "$CONFIG" agent_config
  fi
  if [ "$manage_users" = 1 ]; then
    run chown "$SERVICE_USER:$SERVICE_USER" "$CONFIG"
  fi

  if [ -f "$UNIT" ] && grep -q '^SupplementaryGroups=dialout$' "$UNIT"; then
    serial=1
  fi
  say "Installing $UNIT"
  [ "$serial" = 0 ] || note "with serial ports (SupplementaryGroups=dialout)"
  run mkdir -p "$UNIT_DIR"
  write_file 0644 "$UNIT" agent_unit

  if [ -n "$systemctl_cmd" ]; then
    say "Starting $SERVICE"
    sysctl daemon-reload
    sysctl enable "$SERVICE"
    sysctl restart "$SERVICE"
  else
    note "not enabling or starting $SERVICE: --root without \$SYSTEMCTL"
  fi

  if [ "$dry_run" = 1 ]; then
    say "Dry run: nothing was changed"
  else
    say "The Caudal agent $CAUDAL_AGENT_VERSION is installed"
  fi
  if [ "$keep_config" = 0 ]; then
    note "On its first start it enrolls at $CAUDAL_SERVER_URL with the code in $CONFIG (valid until $CAUDAL_ENROLLMENT_EXPIRES_AT)."
  fi
  note "Status: systemctl status $SERVICE    Logs: journalctl -u $SERVICE"
}

case $action in
  install) install_agent ;;
  uninstall | purge) uninstall ;;
esac
