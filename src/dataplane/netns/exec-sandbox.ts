// What `kubectl exec` runs in a pod (docs/clients.md §5.18): one tool of a short allow-list, in the pod's network
// namespace, as nobody, inside a mount namespace whose root is a small tmpfs showing only what the tools need
// (/usr and the /lib* and /bin dirs read-only, a /etc of a few files: the pod's resolv.conf and hosts, passwd
// and group naming root and nobody), a /tmp of its own (over the container's /tmp, read-only, when it has one), and
// a /proc of its own PID namespace. Its hostname is
// the pod's (a UTS namespace). Nothing it does reaches the host's files or network (docs/dataplane.md §2).
import type { ChildProcess } from 'node:child_process';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NOBODY, spawnInNetns } from './spawn.js';

/**
 * The commands `kubectl exec` runs, by name. The network tools the issue asks for, and a few harmless helpers a
 * user reaches for beside them: `host` (the third DNS client), `cat` (read /etc/resolv.conf and /etc/hosts),
 * `hostname` (the pod's name, as in a container), `echo`, `sleep`, `true`, `false` (scripts and tests of exit
 * codes), `traceroute`/`tracepath` when installed. Nothing that starts other programs (shells, env, timeout,
 * xargs, busybox) or changes the system (nsenter, mount, unshare) is on it.
 */
export const EXEC_TOOLS: readonly string[] = [
  'curl',
  'wget',
  'nc',
  'ping',
  'nslookup',
  'dig',
  'host',
  'ip',
  'ss',
  'traceroute',
  'tracepath',
  'cat',
  'hostname',
  'echo',
  'sleep',
  'true',
  'false',
];

/** Where an absolute command path may point: `kubectl exec pod -- /usr/bin/curl …` is curl. */
const BIN_DIRS = ['/bin', '/sbin', '/usr/bin', '/usr/sbin', '/usr/local/bin', '/usr/local/sbin'];

/** The allow-listed tool argv[0] names, or undefined when it is not one. */
export function execTool(argv0: string): string | undefined {
  const slash = argv0.lastIndexOf('/');
  if (slash >= 0 && !BIN_DIRS.includes(argv0.slice(0, slash))) return undefined;
  const name = slash >= 0 ? basename(argv0) : argv0;
  return EXEC_TOOLS.includes(name) ? name : undefined;
}

/** The bounds of one exec (docs/clients.md §5.18). */
export const EXEC_LIMITS = {
  /** A command still running after this long is killed (ping without -c, nc -l). */
  maxDurationMs: 30 * 60_000,
  /** stdout and stderr together; past it the command is killed. */
  maxOutputBytes: 64 * 1024 * 1024,
  /** The tmpfs /tmp a command may write into (wget, curl -o). */
  tmpSize: '16m',
} as const;

/**
 * Run as root inside `unshare --mount --uts --pid --fork` (so every mount and the hostname stay in this
 * command's namespaces): builds the root on a tmpfs mounted over /mnt — a mount point every Debian has, hidden
 * only inside this namespace — then chroots into it and drops to nobody. The tool and its arguments are "$@",
 * never parsed by a shell.
 */
const SETUP = `set -eu
r=/mnt
mount -t tmpfs -o size=4m,mode=0755 aksemu-exec "$r"
cd "$r"
for d in usr bin sbin lib lib32 lib64 libx32; do
  if [ -L "/$d" ]; then ln -s "$(readlink "/$d")" "$d"
  elif [ -d "/$d" ]; then mkdir "$d"; mount --bind "/$d" "$d"; mount -o remount,bind,ro "$d"
  fi
done
mkdir etc dev proc tmp
printf '%s' "$AKSEMU_RESOLV" > etc/resolv.conf
printf '%s' "$AKSEMU_HOSTS" > etc/hosts
printf 'root:x:0:0:root:/root:/usr/sbin/nologin\\nnobody:x:${NOBODY.uid}:${NOBODY.gid}:nobody:/nonexistent:/usr/sbin/nologin\\n' > etc/passwd
printf 'root:x:0:\\nnogroup:x:${NOBODY.gid}:\\n' > etc/group
printf 'hosts: files dns\\n' > etc/nsswitch.conf
printf '%s\\n' "$AKSEMU_HOSTNAME" > etc/hostname
if [ -n "\${AKSEMU_SA_TOKEN:-}" ]; then
  sa=var/run/secrets/kubernetes.io/serviceaccount
  mkdir -p "$sa"
  printf '%s' "$AKSEMU_SA_TOKEN" > "$sa/token"
  printf '%s' "$AKSEMU_SA_CA" > "$sa/ca.crt"
  printf '%s' "$AKSEMU_SA_NAMESPACE" > "$sa/namespace"
fi
for d in ssl alternatives; do
  if [ -d "/etc/$d" ]; then mkdir "etc/$d"; mount --bind "/etc/$d" "etc/$d"; mount -o remount,bind,ro "etc/$d"; fi
done
for n in null zero random urandom; do touch "dev/$n"; mount --bind "/dev/$n" "dev/$n"; done
if [ -n "\${AKSEMU_PROGRAMS:-}" ]; then
  mkdir -p aksemu/programs
  printf '{"type":"module"}\n' > aksemu/package.json
  mount --bind "$AKSEMU_PROGRAMS" aksemu/programs
  mount -o remount,bind,ro aksemu/programs
fi
if [ -n "\${AKSEMU_TTY:-}" ]; then
  mkdir dev/pts
  mount -t devpts -o newinstance,ptmxmode=0666,mode=0620 devpts dev/pts
  ln -s pts/ptmx dev/ptmx
fi
mount -t proc -o nosuid,nodev,noexec proc proc
if [ -n "\${AKSEMU_TMP_LOWER:-}" ] && [ -d "$AKSEMU_TMP_LOWER" ]; then
  mkdir .tmp-layer
  mount -t tmpfs -o size=${EXEC_LIMITS.tmpSize},mode=0755,nosuid,nodev tmp .tmp-layer
  mkdir -m 1777 .tmp-layer/upper
  mkdir .tmp-layer/work
  mount -t overlay -o "lowerdir=$AKSEMU_TMP_LOWER,upperdir=.tmp-layer/upper,workdir=.tmp-layer/work,nosuid,nodev" tmp tmp
else
  mount -t tmpfs -o size=${EXEC_LIMITS.tmpSize},mode=1777,nosuid,nodev tmp tmp
fi
hostname "$AKSEMU_HOSTNAME"
mount -o remount,ro "$r"
cd /
exec chroot "$r" setpriv --reuid=${NOBODY.uid} --regid=${NOBODY.gid} --clear-groups -- env -C /tmp -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/tmp \${AKSEMU_TTY:+TERM=xterm} "$@"
`;

export interface ExecSandbox {
  /** The pod's network namespace (/run/netns/…). */
  netns: string;
  /** The pod's name: the command's hostname. */
  hostname: string;
  resolvConf: string;
  hosts: string;
  /** The pod's service-account files (token, ca.crt, namespace), at /var/run/secrets/kubernetes.io/serviceaccount. */
  serviceAccount?: ReadonlyMap<string, string>;
  /** A terminal (kubectl exec -t): the command runs under util-linux `script` on a pty of its own devpts. */
  tty?: boolean;
  /**
   * The container's own /tmp (what `kubectl cp` put there: cluster/kubelet/container-rootfs.ts), shown read-only
   * under the command's /tmp, whose writes stay in its own bounded layer (an overlay on its tmpfs). A path an
   * overlay option cannot hold (`,` `:` `\\`) is not shown.
   */
  tmpLower?: string;
  /**
   * A program of aksemu's that is the tool (an emulated build, images/network-tools.ts): its folder (modules
   * importing only node's and each other) is bound read-only at /aksemu/programs, and node runs `file` there
   * with the tool's arguments.
   */
  program?: { dir: string; file: string };
}

/** Where the emulated tools' folder is inside the sandbox (an ES module package: /aksemu/package.json). */
const PROGRAMS_DIR = '/aksemu/programs';

/** The argv (after nsenter) that runs `argv` (its argv[0] an allow-listed tool) in the sandbox. */
export function sandboxedArgv(sandbox: ExecSandbox, tool: readonly string[]): string[] {
  // node is on the bound /usr (Debian's /usr/bin/node).
  const argv = sandbox.program ? [process.execPath, `${PROGRAMS_DIR}/${sandbox.program.file}`, ...tool] : tool;
  const command = sandbox.tty ? ['script', '--quiet', '--return', '--command', argv.map(shellQuoted).join(' '), '/dev/null'] : argv;
  return ['unshare', '--mount', '--uts', '--pid', '--fork', '--kill-child', '--propagation', 'private', '--', 'sh', '-c', SETUP, 'aksemu-exec', ...command];
}

/** One word for sh, whatever it holds (`script` takes its command as a string). */
function shellQuoted(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/** Starts an allow-listed command in the pod's sandbox (stdio pipes). */
export function spawnSandboxed(sandbox: ExecSandbox, argv: readonly string[]): ChildProcess {
  return spawnInNetns(sandbox.netns, sandboxedArgv(sandbox, argv), {
    user: 'root',
    env: {
      PATH: '/usr/sbin:/usr/bin:/sbin:/bin',
      AKSEMU_RESOLV: sandbox.resolvConf,
      AKSEMU_HOSTS: sandbox.hosts,
      AKSEMU_HOSTNAME: sandbox.hostname,
      ...(sandbox.serviceAccount
        ? {
            AKSEMU_SA_TOKEN: sandbox.serviceAccount.get('token') ?? '',
            AKSEMU_SA_CA: sandbox.serviceAccount.get('ca.crt') ?? '',
            AKSEMU_SA_NAMESPACE: sandbox.serviceAccount.get('namespace') ?? '',
          }
        : {}),
      ...(sandbox.tty ? { AKSEMU_TTY: '1' } : {}),
      ...(sandbox.program ? { AKSEMU_PROGRAMS: sandbox.program.dir } : {}),
      ...(sandbox.tmpLower && !/[,:\\]/.test(sandbox.tmpLower) ? { AKSEMU_TMP_LOWER: sandbox.tmpLower } : {}),
    },
  });
}

const RELAY = fileURLToPath(new URL('./relay.js', import.meta.url));

/** A port-forward relay in the pod's namespace, as nobody: stdin/stdout ⇄ 127.0.0.1:port (relay.ts). */
export function spawnRelay(netns: string, port: number): ChildProcess {
  return spawnInNetns(netns, [process.execPath, RELAY, String(port)], { user: 'nobody' });
}
