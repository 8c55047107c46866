// The images people run to test a cluster's network, as data: which network tools each ships and whose build
// each is (busybox's applets are not GNU wget or OpenBSD nc: other options, messages, exit codes). A container
// of one of them, and `kubectl exec` into it, runs a tool as that build does (docs/clients.md §5.16, §5.18):
// the host's binary when the host has the same build (curl, bind's dig/nslookup/host, iproute2, iputils), an
// emulation of aksemu's when it has another (busybox's wget and nc: applets/), and the
// host's binary with a Warning saying so when aksemu has neither (busybox's nslookup, ping, traceroute, ip). A tool the image
// does not ship is not found, as its shell says. Images not listed here run the host's tools (EXEC_TOOLS).
import { fileURLToPath } from 'node:url';
import { imageRepository } from '../cni-agents/catalogue.js';

/** Who built a tool: busybox's applet, or the project whose binary the host (Debian) has. */
export type ToolBuild = 'busybox' | 'curl' | 'bind' | 'iputils' | 'iproute2' | 'openbsd-netcat' | 'gnu-wget' | 'coreutils' | 'traceroute';

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

export interface ToolImage {
  /** The name the docs and messages use. */
  name: string;
  /** Matches the image reference without tag or digest. */
  image: RegExp;
  /** The tools it ships (names as run), with their builds. */
  tools: Readonly<Record<string, ToolBuild>>;
  /** Its CMD when the container names neither command nor args. */
  cmd: readonly string[];
  /**
   * A program its ENTRYPOINT runs when the first argument is an option or no program of the image
   * (curlimages/curl's entrypoint.sh: `set -- curl "$@"`).
   */
  defaultProgram?: string;
}

/** The applets busybox's defconfig builds that matter here (networking/ and the few helpers beside them). */
const BUSYBOX_TOOLS = ['wget', 'nc', 'ping', 'nslookup', 'traceroute', 'ip', 'hostname', 'cat', 'echo', 'sleep', 'true', 'false'];
const busybox = (names: readonly string[]): Record<string, ToolBuild> => Object.fromEntries(names.map((n) => [n, 'busybox' as const]));

const DOCKER_HUB = '(?:(?:docker\\.io|index\\.docker\\.io)\\/)?';

export const TOOL_IMAGES: readonly ToolImage[] = [
  {
    name: 'busybox',
    image: new RegExp(`^(?:${DOCKER_HUB}(?:library\\/)?busybox|mcr\\.microsoft\\.com\\/(?:azurelinux|cbl-mariner)\\/busybox)$`),
    tools: busybox(BUSYBOX_TOOLS),
    cmd: ['sh'],
  },
  // Alpine's /bin/sh, wget, nc, nslookup, ping… are busybox's applets.
  { name: 'alpine', image: new RegExp(`^${DOCKER_HUB}(?:library\\/)?alpine$`), tools: busybox(BUSYBOX_TOOLS), cmd: ['/bin/sh'] },
  // On alpine: curl is curl's, the rest busybox's; ENTRYPOINT /entrypoint.sh, CMD curl.
  {
    name: 'curlimages/curl',
    image: new RegExp(`^${DOCKER_HUB}curlimages\\/curl$`),
    tools: { ...busybox(BUSYBOX_TOOLS), curl: 'curl' },
    cmd: ['curl'],
    defaultProgram: 'curl',
  },
  // busybox with curl, as the Kubernetes docs' DNS and Service tutorials run it.
  { name: 'radial/busyboxplus', image: new RegExp(`^${DOCKER_HUB}radial\\/busyboxplus$`), tools: { ...busybox(BUSYBOX_TOOLS), curl: 'curl' }, cmd: ['sh'] },
  // netshoot's packages: curl, bind-tools, iproute2, iputils, netcat-openbsd; wget is alpine's busybox applet.
  {
    name: 'nicolaka/netshoot',
    image: new RegExp(`^${DOCKER_HUB}nicolaka\\/netshoot$`),
    tools: {
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
    cmd: ['zsh'],
  },
];

export function toolImageOf(image: string): ToolImage | undefined {
  const repo = imageRepository(image);
  return TOOL_IMAGES.find((t) => t.image.test(repo));
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

/** How `argv` (its argv[0] a network tool aksemu may run) runs in a container of `image`. */
export function toolRun(image: string, argv: readonly string[]): ToolRun {
  const name = toolName(argv[0] ?? '');
  const spec = toolImageOf(image);
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
