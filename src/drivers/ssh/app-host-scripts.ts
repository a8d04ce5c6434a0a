/**
 * @module The programs cairn installs on a host for its apps (uploaded to `<runtime dir>/bin/`)
 * and the constant scripts it runs there. All are constants: nothing a tenant wrote is spliced
 * into them; what varies (paths cairn made, ports, the health path) arrives as arguments, and a
 * tenant's command or build is read by the supervisor from a file and run as ONE `sh -c` argument.
 *
 * `cairn-supervise [--once] SERVICE_DIR LOG [COPY_LOG]` runs the program a service directory
 * describes — `command` (shell text for `sh -c`), `cwd`, `user` (run as that OS user, when cairn
 * is root), `env` (0600, lines `NAME='value'` quoted by cairn, sourced: never on a command line)
 * — with each line of its stdout and stderr written to LOG as `<ISO time> <stream> <line>`
 * (rotated past a size, keeping 3 older files). Without `--once` it restarts the program when it
 * exits (backoff 1 s doubling to 30 s, reset after 30 s up), keeps `supervisor.pid` and
 * `child.pid` (the child leads its own process group), appends each exit to `exits`, and on
 * SIGTERM stops the child's group (TERM, then KILL after 10 s) and exits. Started with
 * `setsid nohup`, it outlives the SSH session that started it.
 *
 * `cairn-proxy.py PORTS TARGET_FILE PORT_FILE` is the app's stable endpoint: a TCP proxy on 0.0.0.0
 * (the first of the comma-separated PORTS it can have, else a free one; written to PORT_FILE)
 * that forwards each new connection to 127.0.0.1:<the port in TARGET_FILE>, re-read on SIGHUP.
 */

export const SUPERVISOR_NAME = 'cairn-supervise';
export const PROXY_NAME = 'cairn-proxy.py';

export const SUPERVISOR_SCRIPT = `#!/bin/sh
# cairn-supervise: installed by cairn. See cairn's src/drivers/ssh/app-host-scripts.ts.
set -u
once=
if [ "\${1:-}" = --once ]; then once=1; shift; fi
svc=$1
log=$2
copy=\${3:-}
cap=\${CAIRN_APP_LOG_BYTES:-1048576}
keep=3
SETSID=$(command -v setsid)
SETPRIV=$(command -v setpriv || true)
fmt=+%Y-%m-%dT%H:%M:%S.%3NZ
case $(date -u +%3N) in *N*) fmt=+%Y-%m-%dT%H:%M:%S.000Z ;; esac
now() { date -u "$fmt"; }

rotate() {
  size=$(wc -c < "$log" 2>/dev/null || echo 0)
  [ "$size" -gt "$cap" ] || return 0
  i=$keep
  while [ "$i" -gt 1 ]; do
    p=$((i - 1))
    if [ -f "$log.$p" ]; then mv -f "$log.$p" "$log.$i"; fi
    i=$p
  done
  mv -f "$log" "$log.1"
}

lines() {
  n=0
  while IFS= read -r line || [ -n "$line" ]; do
    entry="$(now) $1 $line"
    printf '%s\\n' "$entry" >> "$log"
    if [ -n "$copy" ]; then printf '%s\\n' "$entry" >> "$copy"; fi
    n=$((n + 1))
    if [ "$n" -ge 100 ]; then n=0; rotate; fi
  done
}

say() { printf '%s system %s\\n' "$(now)" "$*" >> "$log"; }

child=
stopping=
stop() {
  stopping=1
  if [ -n "$child" ]; then
    kill -TERM "-$child" 2>/dev/null || kill -TERM "$child" 2>/dev/null
    ( sleep 10; kill -KILL "-$child" 2>/dev/null ) >/dev/null 2>&1 &
  fi
}
trap stop TERM INT
trap '' HUP

start_child() {
  rm -f "$svc/out" "$svc/err"
  mkfifo -m 600 "$svc/out" "$svc/err"
  lines stdout < "$svc/out" &
  lines stderr < "$svc/err" &
  cmd=$(cat "$svc/command")
  user=$(cat "$svc/user" 2>/dev/null || true)
  cwd=$(cat "$svc/cwd" 2>/dev/null || echo /)
  (
    cd "$cwd" || exit 126
    if [ -f "$svc/env" ]; then set -a; . "$svc/env"; set +a; fi
    if [ -n "$user" ]; then
      uid=$(id -u "$user") && gid=$(id -g "$user") || exit 126
      if [ -n "$once" ]; then exec "$SETPRIV" --reuid="$uid" --regid="$gid" --init-groups -- /bin/sh -c "$cmd"; fi
      exec "$SETSID" "$SETPRIV" --reuid="$uid" --regid="$gid" --init-groups -- /bin/sh -c "$cmd"
    fi
    if [ -n "$once" ]; then exec /bin/sh -c "$cmd"; fi
    exec "$SETSID" /bin/sh -c "$cmd"
  ) > "$svc/out" 2> "$svc/err" &
  child=$!
  echo "$child" > "$svc/child.pid"
}

if [ -n "$once" ]; then
  start_child
  wait "$child"
  code=$?
  wait
  rm -f "$svc/out" "$svc/err" "$svc/child.pid"
  exit "$code"
fi

echo "$$" > "$svc/supervisor.pid"
delay=1
while :; do
  started=$(date +%s)
  start_child
  code=0
  while :; do
    wait "$child"
    code=$?
    kill -0 "$child" 2>/dev/null || break
  done
  [ -n "$stopping" ] && break
  printf '%s exited with code %s\\n' "$(now)" "$code" >> "$svc/exits"
  if [ $(($(date +%s) - started)) -ge 30 ]; then delay=1; fi
  say "the process exited with code $code; restarting it in \${delay}s"
  sleep "$delay" &
  wait $!
  [ -n "$stopping" ] && break
  if [ "$delay" -lt 30 ]; then delay=$((delay * 2)); fi
done
rm -f "$svc/supervisor.pid" "$svc/child.pid" "$svc/out" "$svc/err"
exit 0
`;

export const PROXY_SCRIPT = `# cairn-proxy.py: installed by cairn. See cairn's src/drivers/ssh/app-host-scripts.ts.
import asyncio, os, signal, sys

ports, target_file, port_file = [int(p) for p in sys.argv[1].split(',') if p], sys.argv[2], sys.argv[3]
target = None


def load():
    global target
    try:
        with open(target_file) as f:
            text = f.read().strip()
        target = int(text) if text else None
    except (OSError, ValueError):
        target = None


async def pipe(reader, writer):
    try:
        while True:
            data = await reader.read(65536)
            if not data:
                break
            writer.write(data)
            await writer.drain()
        if writer.can_write_eof():
            writer.write_eof()
    except (ConnectionError, OSError):
        writer.close()


async def handle(client_reader, client_writer):
    port = target
    if port is None:
        client_writer.close()
        return
    try:
        reader, writer = await asyncio.open_connection('127.0.0.1', port)
    except OSError:
        client_writer.close()
        return
    await asyncio.gather(pipe(client_reader, writer), pipe(reader, client_writer))
    writer.close()
    client_writer.close()


async def main():
    load()
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGHUP, load)
    stop = asyncio.Event()
    loop.add_signal_handler(signal.SIGTERM, stop.set)
    server = None
    for port in [p for p in ports if p > 0] + [0]:
        try:
            server = await asyncio.start_server(handle, '0.0.0.0', port, reuse_address=True)
            break
        except OSError as error:
            print('cannot listen on port %d (%s)' % (port, error), file=sys.stderr, flush=True)
    bound = server.sockets[0].getsockname()[1]
    temporary = port_file + '.tmp'
    with open(temporary, 'w') as f:
        f.write(str(bound))
    os.replace(temporary, port_file)
    print('listening on port %d' % bound, flush=True)
    async with server:
        await stop.wait()


asyncio.run(main())
`;

/** argv: port path timeout_seconds exits_file. Exit 0 healthy; else prints why. An empty path checks a TCP connection. */
export const HEALTH_CHECK_SCRIPT = `
import http.client, socket, sys, time
port, path, timeout, exits = int(sys.argv[1]), sys.argv[2], float(sys.argv[3]), sys.argv[4]
what = 'a TCP connection to port %d' % port if path == '' else 'GET %s on port %d' % (path, port)
deadline = time.time() + timeout
last = 'no answer yet'
while time.time() < deadline:
    try:
        with open(exits) as f:
            ended = f.read().strip().splitlines()
        if ended:
            print('the process %s before %s succeeded' % (ended[-1].split(' ', 1)[-1], what))
            sys.exit(2)
    except FileNotFoundError:
        pass
    try:
        if path == '':
            socket.create_connection(('127.0.0.1', port), timeout=2).close()
            sys.exit(0)
        connection = http.client.HTTPConnection('127.0.0.1', port, timeout=2)
        connection.request('GET', path)
        response = connection.getresponse()
        response.read()
        connection.close()
        if response.status < 400:
            sys.exit(0)
        last = 'it answered %d' % response.status
    except (OSError, http.client.HTTPException) as error:
        last = str(error) or type(error).__name__
    time.sleep(0.1)
print('health check failed: %s did not succeed within %d s (%s)' % (what, timeout, last))
sys.exit(1)
`;

/** Shell functions the compound scripts below share (constants; every value arrives as an argument). */
const FUNCTIONS = String.raw`
say() {
  t=$(date -u +%Y-%m-%dT%H:%M:%S.%3NZ)
  case $t in *N*) t=$(date -u +%Y-%m-%dT%H:%M:%S.000Z) ;; esac
  printf '%s system %s\n' "$t" "$1" >> "$LOG"
}
supervised() {
  p=$(cat "$1/supervisor.pid" 2>/dev/null) && grep -q cairn-supervise "/proc/$p/cmdline" 2>/dev/null
}
write_service() {
  rm -rf "$1" && mkdir -p "$1" || return 1
  printf '%s' "$2" > "$1/cwd"
  printf '%s' "$3" > "$1/user"
  printf '%s' "$4" > "$1/command"
  cat > "$1/env"
}
start_service() {
  if [ -n "$2" ]; then systemctl daemon-reload && systemctl enable --now "$2"
  else setsid nohup "$SUPERVISOR" "$1" "$LOG" </dev/null >/dev/null 2>&1 &
  fi
}
stop_services() {
  pids=
  for svc in "$@"; do
    if supervised "$svc"; then kill -TERM "$p" 2>/dev/null; pids="$pids $p"; fi
  done
  i=0
  while [ -n "$pids" ] && [ $i -lt 150 ]; do
    alive=
    for p in $pids; do if grep -q cairn-supervise "/proc/$p/cmdline" 2>/dev/null; then alive="$alive $p"; fi; done
    pids=$alive
    [ -n "$pids" ] && sleep 0.1
    i=$((i + 1))
  done
  for svc in "$@"; do
    if supervised "$svc"; then kill -KILL "$p" 2>/dev/null; fi
    c=$(cat "$svc/child.pid" 2>/dev/null) && kill -KILL "-$c" 2>/dev/null
    rm -f "$svc/supervisor.pid" "$svc/child.pid"
  done
  return 0
}
`;

/** argv: service dirs. Stops the supervisor of each (TERM: it stops its child's group), waits up to 15 s, then KILLs what is left. */
export const STOP_SCRIPT = `${FUNCTIONS}\nstop_services "$@"\n`;

/**
 * argv: runtime dir, app dir, release dir, user ('' = the SSH user), log, message, message when
 * run as a user. Makes the app's directories (and its OS user, when cairn is root), then unpacks
 * the tar stream on stdin into the release directory, owned by the app's user.
 */
export const PREPARE_RELEASE_SCRIPT = String.raw`
rt=$1; app=$2; rel=$3; user=$4; LOG=$5
umask 077
mkdir -p "$app/releases" "$app/services" "$app/logs" "$app/home" || exit 1
say "$6"
rm -rf "$rel" && mkdir -p "$rel" || exit 1
if [ -n "$user" ]; then
  chmod 711 "$rt" "$rt/apps" "$app" "$app/releases" || exit 1
  if ! id -u "$user" >/dev/null 2>&1; then
    useradd --system --no-create-home --home-dir "$app/home" --shell "$(command -v nologin || echo /bin/false)" "$user" || exit 1
  fi
  chown "$user:" "$app/home" || exit 1
fi
tar -x --no-same-owner -f - -C "$rel" || exit 1
if [ -n "$user" ]; then chown -R "$user:" "$rel" || exit 1; say "$7"; fi
`.replace(/^/, FUNCTIONS);

/** argv: service dir, cwd, user, build command, supervisor, log, build log, message; env file on stdin. Runs the build once, its output in both logs. */
export const BUILD_SCRIPT = String.raw`
umask 077
LOG=$6
write_service "$1" "$2" "$3" "$4" || exit 1
say "$8"
exec "$5" --once "$1" "$6" "$7"
`.replace(/^/, FUNCTIONS);

/**
 * argv: service dir, cwd, user, command, supervisor, log, python3, health script, health path
 * ('' = TCP), timeout (s), systemd unit ('' = detached); env file on stdin. Picks a free port
 * (PORT, added to the env file), starts the release under the supervisor, prints `port=<n>`,
 * then health-checks it: exit 0 healthy, else the reason on stdout.
 */
export const START_RELEASE_SCRIPT = String.raw`
umask 077
LOG=$6; SUPERVISOR=$5
write_service "$1" "$2" "$3" "$4" || exit 1
port=$("$7" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])') || exit 1
printf 'PORT=%s\n' "$port" >> "$1/env"
echo "port=$port"
start_service "$1" "${'$'}{11}" || exit 1
exec "$7" -c "$8" "$port" "$9" "${'$'}{10}" "$1/exits"
`.replace(/^/, FUNCTIONS);

/**
 * argv: target file, port, proxy service dir, supervisor, log, port file, proxy command,
 * systemd unit ('' = detached), message. Points the stable port at the release's port: SIGHUP
 * to a running proxy, else starts it; prints the port the proxy listens on.
 */
export const SWITCH_SCRIPT = String.raw`
umask 077
LOG=$5; SUPERVISOR=$4
printf '%s\n' "$2" > "$1.tmp" && chmod 644 "$1.tmp" && mv -f "$1.tmp" "$1" || exit 1
running=
if [ -n "$8" ]; then systemctl is-active --quiet "$8" && running=1
elif supervised "$3"; then running=1
fi
if [ -n "$running" ]; then
  c=$(cat "$3/child.pid") && kill -HUP "-$c" || exit 1
else
  rm -f "$6"
  write_service "$3" / '' "$7" </dev/null || exit 1
  start_service "$3" "$8" || exit 1
fi
i=0
while [ ! -s "$6" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
[ -s "$6" ] || { echo "the proxy did not say which port it listens on" >&2; exit 1; }
bound=$(cat "$6")
say "$9 $bound"
echo "$bound"
`.replace(/^/, FUNCTIONS);

/**
 * argv: app dir, keep releases above this number, the release serving now, service dirs to stop.
 * Stops the old release, and any other release still running but not serving (one a cairn that
 * died mid-rollout had started), and removes older releases.
 */
export const RETIRE_SCRIPT = String.raw`
app=$1; from=$2; serving=$3; shift 3
for d in "$app"/services/r*; do
  [ -d "$d" ] || continue
  n=${'$'}{d##*/r}
  case $n in *[!0-9]*|'') continue ;; esac
  [ "$n" = "$serving" ] || set -- "$@" "$d"
done
[ $# -gt 0 ] && stop_services "$@"
for d in "$app"/releases/*; do
  n=${'$'}{d##*/}
  case $n in *[!0-9]*|'') continue ;; esac
  if [ "$n" -le "$from" ]; then rm -rf "$d" "$app/services/build-$n" "$app/services/r$n"; rm -f "$app/logs/build-$n.log"; fi
done
exit 0
`.replace(/^/, FUNCTIONS);

/**
 * argv: app dir, app id, user ('' = none), 1 when the host runs systemd. Stops every service
 * of the app (units first), removes its directory and its OS user.
 */
export const DELETE_SCRIPT = String.raw`
app=$1; id=$2; user=$3
if [ "$4" = 1 ]; then
  for f in /etc/systemd/system/cairn-"$id"-*.service; do
    [ -f "$f" ] || continue
    systemctl disable --now "${'$'}{f##*/}" >/dev/null 2>&1
    rm -f "$f"
  done
  systemctl daemon-reload
fi
set --
for d in "$app"/services/*/; do [ -d "$d" ] && set -- "$@" "${'$'}{d%/}"; done
[ $# -gt 0 ] && stop_services "$@"
rm -rf "$app" || exit 1
if [ -n "$user" ] && id -u "$user" >/dev/null 2>&1; then userdel "$user" || exit 1; fi
exit 0
`.replace(/^/, FUNCTIONS);
