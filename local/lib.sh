# shellcheck shell=bash
# Shared helpers for local/run and local/test. Source it; don't execute it.
#
#   ensure_venv            create/refresh local/.venv from local/requirements.txt and put it on PATH
#   ensure_venv_at DIR REQ link DIR to the machine's virtual environment of requirements file REQ
#   ensure_checkov         create/refresh local/.venv-checkov and set CHECKOV to its checkov
#   free_port              print a free TCP port on 127.0.0.1 (never 4566)
#   port_answers PORT      true if an HTTP server answers on 127.0.0.1:PORT
#   start_emulator PORT    start moto_server on 127.0.0.1:PORT in the background, wait until ready
#   export_aws_env URL     point the AWS SDKs/CLIs at URL with dummy credentials
#   spawn_group LOG CMD..  run CMD in its own process group in the background (LOG: file or "-")
#   stop_children          stop every process group started with spawn_group (TERM, then KILL)
#
# Everything works under `set -euo pipefail`. Needs bash, python3, curl.

if [[ -n "${_LOCAL_LIB_SOURCED:-}" ]]; then
    return 0
fi
_LOCAL_LIB_SOURCED=1

LOCAL_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
VENV_DIR="$LOCAL_DIR/.venv"
STATE_DIR="$LOCAL_DIR/.state"
REQUIREMENTS="$LOCAL_DIR/requirements.txt"
CHECKOV_VENV_DIR="$LOCAL_DIR/.venv-checkov"
PYTHON="${PYTHON:-python3}"

# One target dir outside the work tree, shared by local/run, local/test and CI runs of the
# same machine, so the dependencies are built once; the Python environments likewise.
PLATFORM_CACHE="${PLATFORM_CACHE:-$HOME/.cache/serverless-platform}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PLATFORM_CACHE/target}"
VENV_CACHE="$PLATFORM_CACHE/venvs"

# Process groups started by spawn_group, newest last.
CHILD_PGIDS=()

log() { printf '%s\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# --------------------------------------------------------------------------------------------
# Virtual environment

_requirements_stamp() {
    # Hash of a requirements file plus the interpreter's version: either changing rebuilds the venv.
    "$PYTHON" - "$1" <<'PY'
import hashlib, sys
h = hashlib.sha256()
h.update(sys.version.encode())
with open(sys.argv[1], "rb") as f:
    h.update(f.read())
print(h.hexdigest())
PY
}

_venv_activate() {
    export VIRTUAL_ENV="$VENV_DIR"
    case ":$PATH:" in
        *":$VENV_DIR/bin:"*) ;;
        *) export PATH="$VENV_DIR/bin:$PATH" ;;
    esac
    unset PYTHONHOME
    export PIP_DISABLE_PIP_VERSION_CHECK=1
}

# Lock so that local/run and local/test (of this checkout or another) don't build a venv twice.
_venv_lock() {
    local lock="$VENV_CACHE/$1.lock" waited=0 holder
    mkdir -p "$VENV_CACHE"
    until mkdir "$lock" 2>/dev/null; do
        holder="$(cat "$lock/pid" 2>/dev/null || true)"
        if [[ -n "$holder" ]] && ! kill -0 "$holder" 2>/dev/null; then
            rm -rf "$lock"   # left behind by a process that died
            continue
        fi
        if (( waited == 0 )); then log "Waiting for another process to finish installing $1 ..."; fi
        if (( waited >= 900 )); then die "timed out waiting for $lock (remove it if no install is running)"; fi
        sleep 1
        waited=$((waited + 1))
    done
    echo "$$" >"$lock/pid"
}

_venv_unlock() { rm -rf "$VENV_CACHE/$1.lock"; }

# ensure_venv_at DIR REQUIREMENTS: make DIR a ready virtual environment of the pinned
# REQUIREMENTS file (without activating it). The environment itself is built once per machine
# under $VENV_CACHE, named by the requirements' hash, and DIR links to it: a fresh clone of
# the same pins (CI's, or a second checkout) installs nothing.
ensure_venv_at() {
    command -v "$PYTHON" >/dev/null 2>&1 || die "$PYTHON not found (Python 3.9 or newer is needed)"
    local dir="$1" requirements="$2" want name built stamp_file
    name="$(basename "$dir")"
    want="$(_requirements_stamp "$requirements")"
    built="$VENV_CACHE/${name#.}-${want:0:16}"
    stamp_file="$built/.requirements.sha256"
    if [[ ! -x "$built/bin/python" || ! -f "$stamp_file" || "$(cat "$stamp_file")" != "$want" ]]; then
        _venv_install "$built" "$requirements" "$want" "$name"
    fi
    if [[ "$(readlink "$dir" 2>/dev/null || true)" != "$built" ]]; then
        rm -rf "$dir"   # an environment of other pins, or one built in place before the cache
        ln -s "$built" "$dir"
    fi
}

_venv_install() {
    local built="$1" requirements="$2" want="$3" name="$4" lock="${1##*/}"
    _venv_lock "$lock"
    # Another process may have finished the install while we waited for the lock.
    if [[ -x "$built/bin/python" && -f "$built/.requirements.sha256" \
            && "$(cat "$built/.requirements.sha256")" == "$want" ]]; then
        _venv_unlock "$lock"
        return 0
    fi
    mkdir -p "$STATE_DIR"
    local pip_log="$STATE_DIR/pip-install-$name.log" started=$SECONDS
    log "Installing local/$name from ${requirements#"$LOCAL_DIR"/} (once per machine and pins)."
    log "This takes a minute or two; the log is local/.state/pip-install-$name.log."
    rm -rf "$built"
    if ! "$PYTHON" -m venv "$built" >"$pip_log" 2>&1; then
        _venv_unlock "$lock"
        cat "$pip_log" >&2
        die "could not create local/$name (on Debian/Ubuntu: apt-get install python3-venv)"
    fi
    if ! "$built/bin/python" -m pip install --quiet --disable-pip-version-check --no-input \
            -r "$requirements" >>"$pip_log" 2>&1; then
        _venv_unlock "$lock"
        rm -rf "$built"
        tail -n 40 "$pip_log" >&2
        die "pip install -r ${requirements#"$LOCAL_DIR"/} failed (full log: local/.state/pip-install-$name.log)"
    fi
    echo "$want" >"$built/.requirements.sha256"
    _venv_unlock "$lock"
    log "local/$name is ready ($((SECONDS - started)) s)."
}

# ensure_venv: local/.venv (the emulator, linters, SAM, cargo-lambda) ready and on PATH.
ensure_venv() {
    ensure_venv_at "$VENV_DIR" "$REQUIREMENTS"
    _venv_activate
}

# ensure_checkov: local/.venv-checkov ready (checkov, pinned by local/requirements-checkov.txt;
# its own environment because its boto3 pin clashes with the tools'), CHECKOV its executable.
# Not put on PATH: local/.venv stays the one the tools run from.
ensure_checkov() {
    ensure_venv_at "$CHECKOV_VENV_DIR" "$LOCAL_DIR/requirements-checkov.txt"
    CHECKOV="$CHECKOV_VENV_DIR/bin/checkov"
}

# --------------------------------------------------------------------------------------------
# Ports and processes

free_port() {
    "$PYTHON" - <<'PY'
import socket
while True:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    if port != 4566:
        print(port)
        break
PY
}

# True if anything speaking HTTP answers on 127.0.0.1:PORT (any status code counts).
port_answers() {
    curl --silent --output /dev/null --max-time 2 --head "http://127.0.0.1:$1/" 2>/dev/null
}

# spawn_group LOGFILE CMD [ARGS...]
# Starts CMD in the background as the leader of a new session/process group, so that
# stop_children can stop it together with everything it started. LOGFILE "-" keeps the
# caller's stdout/stderr. Sets SPAWNED_PID.
spawn_group() {
    local logfile="$1"
    shift
    local setsid_exec='import os, sys; os.setsid(); os.execvp(sys.argv[1], sys.argv[1:])'
    if [[ "$logfile" == "-" ]]; then
        "$PYTHON" -c "$setsid_exec" "$@" </dev/null &
    else
        "$PYTHON" -c "$setsid_exec" "$@" </dev/null >"$logfile" 2>&1 &
    fi
    SPAWNED_PID=$!
    CHILD_PGIDS+=("$SPAWNED_PID")
}

# True while PID exists and is not a zombie (an exited child not yet reaped still "exists").
_pid_running() {
    local stat
    if [[ -r "/proc/$1/stat" ]]; then
        stat="$(cat "/proc/$1/stat" 2>/dev/null)" || return 1
        stat="${stat##*) }"
        [[ "${stat:0:1}" != "Z" ]]
    elif kill -0 "$1" 2>/dev/null; then
        stat="$(ps -o stat= -p "$1" 2>/dev/null || true)"
        [[ "${stat:0:1}" != "Z" ]]
    else
        return 1
    fi
}

# True while the group led by PID has a live member. Reaps the leader once it has exited.
_group_alive() {
    if _pid_running "$1"; then
        return 0
    fi
    wait "$1" 2>/dev/null || true
    kill -0 -- "-$1" 2>/dev/null
}

_signal_group() { kill "-$1" -- "-$2" 2>/dev/null || kill "-$1" "$2" 2>/dev/null || true; }

# stop_pgid PID [GRACE_SECONDS]: TERM the group, KILL it if still there after the grace period.
stop_pgid() {
    local pid="$1" grace="${2:-10}" i
    _group_alive "$pid" || return 0
    _signal_group TERM "$pid"
    for ((i = 0; i < grace * 10; i++)); do
        _group_alive "$pid" || return 0
        sleep 0.1
    done
    _signal_group KILL "$pid"
    for ((i = 0; i < 20; i++)); do
        _group_alive "$pid" || return 0
        sleep 0.1
    done
    log "warning: process group $pid did not exit"
}

# Stops every group started by spawn_group, newest first. Safe to call more than once.
stop_children() {
    local i
    for ((i = ${#CHILD_PGIDS[@]} - 1; i >= 0; i--)); do
        stop_pgid "${CHILD_PGIDS[$i]}"
    done
    CHILD_PGIDS=()
}

# --------------------------------------------------------------------------------------------
# The AWS emulator

# start_emulator PORT: moto's server (through local/emulator.py, which makes DynamoDB writes
# atomic as they are in AWS) on 127.0.0.1:PORT, logging to local/.state/moto-PORT.log.
# Waits up to ~30 s for it to answer. Sets EMULATOR_PID and EMULATOR_URL.
start_emulator() {
    local port="$1" logfile deadline
    [[ -x "$VENV_DIR/bin/python" ]] || die "the emulator's virtual environment is missing: call ensure_venv first"
    mkdir -p "$STATE_DIR"
    logfile="$STATE_DIR/moto-$port.log"
    spawn_group "$logfile" "$VENV_DIR/bin/python" "$LOCAL_DIR/emulator.py" -H 127.0.0.1 -p "$port"
    EMULATOR_PID="$SPAWNED_PID"
    EMULATOR_URL="http://127.0.0.1:$port"
    deadline=$((SECONDS + 30))
    while ((SECONDS < deadline)); do
        if { curl --silent --fail --output /dev/null --max-time 2 "$EMULATOR_URL/moto-api/" 2>/dev/null \
                || port_answers "$port"; } && _pid_running "$EMULATOR_PID"; then
            return 0
        fi
        if ! _pid_running "$EMULATOR_PID"; then
            wait "$EMULATOR_PID" 2>/dev/null || true
            tail -n 20 "$logfile" >&2 || true
            log "error: the emulator (moto_server) exited before answering on port $port (log: local/.state/moto-$port.log)"
            return 1
        fi
        sleep 0.1
    done
    tail -n 20 "$logfile" >&2 || true
    log "error: the emulator did not answer on $EMULATOR_URL within 30 s (log: local/.state/moto-$port.log)"
    stop_pgid "$EMULATOR_PID" 2
    return 1
}

# export_aws_env ENDPOINT: every AWS SDK and CLI in this shell and its children talks to
# ENDPOINT with dummy credentials, never to real AWS.
export_aws_env() {
    export AWS_ENDPOINT_URL="$1"
    export AWS_ACCESS_KEY_ID=test
    export AWS_SECRET_ACCESS_KEY=test
    unset AWS_SESSION_TOKEN AWS_SECURITY_TOKEN AWS_PROFILE AWS_DEFAULT_PROFILE
    export AWS_REGION="${AWS_REGION:-${AWS_DEFAULT_REGION:-us-east-1}}"
    export AWS_DEFAULT_REGION="${AWS_DEFAULT_REGION:-$AWS_REGION}"
    export AWS_EC2_METADATA_DISABLED=true
}
