// The images people run to test a cluster's network, as catalogue entries (images/catalogue.ts holds them):
// which network tools each ships and whose build each is (busybox's applets are not GNU wget or OpenBSD nc:
// other options, messages, exit codes). A container of one of them, and `kubectl exec` into it, runs a tool as
// that build does (docs/clients.md §5.16, §5.18): the host's binary when the host has the same build (curl,
// bind's dig/nslookup/host, iproute2, iputils), an emulation of aksemu's when it has another (busybox's wget and
// nc: applets/), and the host's binary with a Warning saying so when aksemu has neither (busybox's nslookup,
// ping, traceroute, ip). A tool the image does not ship is not found, as its shell says. Images whose entry
// declares no tools run the host's tools (EXEC_TOOLS).
import { fileURLToPath } from 'node:url';
import type { ImageSpec, ToolBuild } from './program.js';

/** The builds of the host's tools (Debian: curl, wget, netcat-openbsd, iputils-ping, bind9-dnsutils, iproute2). */
export const HOST_BUILDS: Readonly<Record<string, ToolBuild>> = {
  curl: 'curl',
  wget: 'gnu-wget',
  nc: 'openbsd-netcat',
  ping: 'iputils',
  nslookup: 'bind',
  dig: 'bind',
  host: 'bind',
  ip: 'iproute2',
  ss: 'iproute2',
  traceroute: 'traceroute',
  tracepath: 'iputils',
  cat: 'coreutils',
  hostname: 'coreutils',
  echo: 'coreutils',
  sleep: 'coreutils',
  true: 'coreutils',
  false: 'coreutils',
};

/** Tools aksemu runs as another build than the host's: the program (in applets/) that is that build. */
const EMULATIONS: Readonly<Record<string, string>> = {
  'wget/busybox': 'busybox-wget.js',
  'nc/busybox': 'busybox-nc.js',
};

/** The folder of those programs (bound into the sandbox whole: they share applets/applet.ts). */
export const APPLETS_DIR = fileURLToPath(new URL('./applets/', import.meta.url));

/** A catalogue entry of a network-tool image: its name, tools, CMD and entrypoint rule (program.ts ImageSpec). */
export type ToolImage = ImageSpec & { name: string; tools: Readonly<Record<string, ToolBuild>>; cmd: readonly string[] };

/** The applets busybox's defconfig builds that matter here (networking/ and the few helpers beside them). */
const BUSYBOX_TOOLS = ['wget', 'nc', 'ping', 'nslookup', 'traceroute', 'ip', 'hostname', 'cat', 'echo', 'sleep', 'true', 'false'];
const busybox = (names: readonly string[]): Record<string, ToolBuild> => Object.fromEntries(names.map((n) => [n, 'busybox' as const]));

const DOCKER_HUB = '(?:(?:docker\.io|index\.docker\.io)\/)?';

/** An entry: its Docker Hub repository (a pattern, other registries' names as alternatives), tools and CMD. */
function toolImage(name: string, repository: string, tools: Record<string, ToolBuild>, cmd: string[], more: Partial<ToolImage> = {}): ToolImage {
  return { name, programs: {}, image: new RegExp(`^(?:${DOCKER_HUB}${repository})$`), tools, cmd, ...more };
}

const BUSYBOX = busybox(BUSYBOX_TOOLS);

export const TOOL_IMAGES: readonly ToolImage[] = [
  toolImage('busybox', '(?:library\\/)?busybox|mcr\\.microsoft\\.com\\/(?:azurelinux|cbl-mariner)\\/busybox', BUSYBOX, ['sh']),
  // Alpine's /bin/sh, wget, nc, nslookup, ping… are busybox's applets.
  toolImage('alpine', '(?:library\\/)?alpine', BUSYBOX, ['/bin/sh']),
  // On alpine: curl is curl's, the rest busybox's; ENTRYPOINT /entrypoint.sh, CMD curl.
  toolImage('curlimages/curl', 'curlimages\\/curl', { ...BUSYBOX, curl: 'curl' }, ['curl'], { defaultProgram: 'curl' }),
  // busybox with curl, as the Kubernetes docs' DNS and Service tutorials run it.
  toolImage('radial/busyboxplus', 'radial\\/busyboxplus', { ...BUSYBOX, curl: 'curl' }, ['sh']),
  // netshoot's packages: curl, bind-tools, iproute2, iputils, netcat-openbsd; wget is alpine's busybox applet.
  toolImage(
    'nicolaka/netshoot',
    'nicolaka\\/netshoot',
    {
      ...busybox(['wget', 'hostname', 'cat', 'echo', 'sleep', 'true', 'false']),
      curl: 'curl',
      nslookup: 'bind',
      dig: 'bind',
      host: 'bind',
      nc: 'openbsd-netcat',
      ping: 'iputils',
      ip: 'iproute2',
      ss: 'iproute2',
      traceroute: 'traceroute',
    },
    ['zsh'],
  ),
];

/** The catalogue entry as a tool image, when it declares tools. */
export function asToolImage(spec: ImageSpec | undefined): ToolImage | undefined {
  return spec?.tools && spec.name && spec.cmd ? (spec as ToolImage) : undefined;
}

/** How a tool call runs. */
export type ToolRun =
  /** The host's binary, argv as given (its build is the image's, or the image is not one of ours). */
  | { kind: 'host'; argv: string[] }
  /** aksemu's program for that build: node runs `program.file` of `program.dir` with the tool's arguments. */
  | { kind: 'emulated'; argv: string[]; program: { dir: string; file: string }; build: ToolBuild }
  /** The host's binary, though the image's build differs and aksemu does not emulate it: said in a Warning. */
  | { kind: 'other-build'; argv: string[]; build: ToolBuild; hostBuild: ToolBuild }
  /** The image does not ship it. */
  | { kind: 'missing'; name: string };

/** The tool name of argv[0] (`/usr/bin/wget` is wget). */
export function toolName(argv0: string): string {
  return argv0.slice(argv0.lastIndexOf('/') + 1);
}

/** How `argv` (its argv[0] a network tool aksemu may run) runs in a container of the image of that catalogue entry. */
export function toolRun(image: ImageSpec | undefined, argv: readonly string[]): ToolRun {
  const name = toolName(argv[0] ?? '');
  const spec = asToolImage(image);
  if (!spec) return { kind: 'host', argv: [...argv] };
  const build = Object.hasOwn(spec.tools, name) ? spec.tools[name] : undefined;
  if (!build) return { kind: 'missing', name };
  const host = Object.hasOwn(HOST_BUILDS, name) ? HOST_BUILDS[name]! : build;
  if (build === host) return { kind: 'host', argv: [name, ...argv.slice(1)] };
  const emulation = EMULATIONS[`${name}/${build}`];
  if (emulation) return { kind: 'emulated', argv: argv.slice(1), program: { dir: APPLETS_DIR, file: emulation }, build };
  return { kind: 'other-build', argv: [name, ...argv.slice(1)], build, hostBuild: host };
}

/** The argv a container of a tool image runs: its CMD when none is given, curlimages/curl's entrypoint rule. */
export function toolImageArgv(spec: ToolImage, command: readonly string[], args: readonly string[]): string[] {
  if (command.length > 0) return [...command, ...args];
  if (args.length === 0) return [...spec.cmd];
  const first = args[0]!;
  if (spec.defaultProgram && (first.startsWith('-') || !isProgramOf(spec, first))) return [spec.defaultProgram, ...args];
  return [...args];
}

/** Whether the image has a program of that name (its tools and its shell). */
function isProgramOf(spec: ToolImage, argv0: string): boolean {
  const name = toolName(argv0);
  return Object.hasOwn(spec.tools, name) || ['sh', 'ash', 'env', 'printf', 'printenv', 'exec', ':'].includes(name);
}
