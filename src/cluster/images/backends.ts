// The images users and the Kubernetes e2e tests put behind Services, in the catalogue (catalogue.ts; program.ts says
// what an entry holds). With the data plane on, each runs pod-server.js in its pod's network namespace (ctx.netns),
// is Ready once its listeners are bound, and stops with its container; without one (or for a pod restored before
// its namespace is back) nothing listens and the container just runs, as any image aksemu does not emulate.
//   - agnhost (registry.k8s.io/e2e-test-images/agnhost), after kubernetes test/images/agnhost:
//       serve-hostname/serve_hostname.go: `--port` (9376), `--http` (default true) answering the hostname on any
//       path, or `--tcp` / `--udp` raw (HTTP together with TCP or UDP is refused); logs "Serving on port N.";
//       netexec/netexec.go: `--http-port` (8080) with /hostname, /hostName, /clientip (the client's ADDR:PORT),
//       /echo?msg=…&code=…, /healthz and / ("NOW: …"); `--udp-port` (8081, -1 for none) answering hostname,
//       echo MSG and clientip; logs "Started HTTP server on port N".
//     Subcommands the emulation does not serve (pause, and the rest) just run.
//   - nginx (HTTP on 80 with a page of aksemu's own at /, /index.html and /50x.html, nginx's 404 page elsewhere, as its
//     default site; the image's configuration is not read).
// The hostname a pod answers with is its spec.hostname, else its name, as the kubelet truncates it
// (cluster/dns/resolv-conf.ts podHostname).
import { startPodServer, type PodServerListener } from '../../dataplane/netns/pod-server-process.js';
import { podHostname } from '../dns/resolv-conf.js';
import type { ImageSpec, Program, ProgramContext } from './program.js';

const AGNHOST_IMAGE = /(?:^|\/)e2e-test-images\/agnhost$/;
const NGINX_IMAGE = /^(?:(?:docker\.io\/)?(?:library\/)?nginx|mcr\.microsoft\.com\/oss\/nginx\/nginx)$/;

/** The page nginx serves here. */
const NGINX_PAGE = '<!DOCTYPE html>\n<html><head><title>aksemu nginx</title></head><body><p>Served by aksemu for pod {{hostname}}.</p></body></html>\n';

/** A program's name as its argv[0] gives it (a path's last part). */
const basename = (argv0 = '') => argv0.slice(argv0.lastIndexOf('/') + 1);

function hostnameOf(ctx: ProgramContext): string {
  return podHostname(ctx.pod, 'cluster.local').hostname;
}

/** Go's log package prefix: `2006/01/02 15:04:05 `. */
function goLog(line: string): string {
  const d = new Date();
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getUTCFullYear()}/${p(d.getUTCMonth() + 1)}/${p(d.getUTCDate())} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())} ${line}\n`;
}

/** Runs until the container is stopped (ctx.stopped when the runner gives it: no signal made for it). */
function untilStopped(ctx: ProgramContext): Promise<number> {
  if (ctx.stopped) return ctx.stopped().then(() => 0);
  const { signal } = ctx;
  return new Promise((resolve) => {
    if (signal.aborted) resolve(0);
    else signal.addEventListener('abort', () => resolve(0), { once: true });
  });
}

/** Runs the listeners in the pod's namespace until the container stops; Ready once they are bound. */
async function serve(ctx: ProgramContext, listeners: PodServerListener[], log: (line: string) => string, page?: string): Promise<number> {
  // What the kubelet's probes meet (cluster/kubelet/probes.ts): without a data plane, what it would serve.
  if (!ctx.netns) {
    ctx.serves?.(listeners);
    return untilStopped(ctx);
  }
  ctx.setReady(false);
  const hostname = hostnameOf(ctx);
  const server = startPodServer(ctx.netns, { hostname, listeners, ...(page ? { page: page.replace('{{hostname}}', hostname) } : {}) }, ctx.signal, (line) =>
    ctx.write('stderr', log(line)),
  );
  try {
    await server.listening;
  } catch (e) {
    if (!ctx.signal.aborted) ctx.write('stderr', log((e as Error).message));
    return 1;
  }
  ctx.serves?.(listeners);
  ctx.setReady(true);
  const { code } = await server.exited;
  return code;
}

/** pflag's long flags as cobra parses them: `--name=value`, `--name value`, a bare `--bool`. */
function parseFlags(args: string[], defaults: Record<string, string | boolean>): Record<string, string | boolean> | string {
  const out = { ...defaults };
  for (let i = 0; i < args.length; i++) {
    const m = /^--?([a-z][a-z0-9-]*)(?:=(.*))?$/.exec(args[i]!);
    if (!m || !Object.hasOwn(defaults, m[1]!)) return `unknown flag: ${args[i]}`;
    const name = m[1]!;
    if (typeof defaults[name] === 'boolean') {
      if (m[2] !== undefined && m[2] !== 'true' && m[2] !== 'false') return `invalid argument "${m[2]}" for "--${name}" flag`;
      out[name] = m[2] !== 'false';
    } else {
      const value = m[2] ?? args[++i];
      if (value === undefined) return `flag needs an argument: --${name}`;
      out[name] = value;
    }
  }
  return out;
}

function port(value: string | boolean | undefined, allowOff = false): number | undefined {
  const n = Number(value);
  return Number.isInteger(n) && ((n >= 1 && n <= 65535) || (allowOff && n === -1)) ? n : undefined;
}

/** cobra's error for a bad command line: `Error: …` and exit 1. */
function usageError(ctx: ProgramContext, message: string): number {
  ctx.write('stderr', `Error: ${message}\n`);
  return 1;
}

const serveHostname: Program = async (ctx) => {
  const flags = parseFlags(ctx.argv.slice(1), { port: '9376', http: true, tcp: false, udp: false, close: false });
  if (typeof flags === 'string') return usageError(ctx, flags);
  const p = port(flags['port']);
  if (p === undefined) return usageError(ctx, `invalid argument "${String(flags['port'])}" for "--port" flag`);
  if (flags['http'] && (flags['tcp'] || flags['udp'])) {
    ctx.write('stderr', goLog("Can't server TCP/UDP mode and HTTP mode at the same time"));
    return 1;
  }
  const listeners: PodServerListener[] = [];
  if (flags['tcp']) listeners.push({ proto: 'tcp', port: p, answer: 'hostname' });
  if (flags['udp']) listeners.push({ proto: 'udp', port: p, answer: 'hostname' });
  if (flags['http']) listeners.push({ proto: 'http', port: p, answer: 'hostname' });
  ctx.write('stderr', goLog(`Serving on port ${p}.`));
  return serve(ctx, listeners, goLog);
};

const netexec: Program = async (ctx) => {
  const flags = parseFlags(ctx.argv.slice(1), { 'http-port': '8080', 'udp-port': '8081', 'sctp-port': '-1' });
  if (typeof flags === 'string') return usageError(ctx, flags);
  const http = port(flags['http-port']);
  const udp = port(flags['udp-port'], true);
  if (http === undefined) return usageError(ctx, `invalid argument "${String(flags['http-port'])}" for "--http-port" flag`);
  if (udp === undefined) return usageError(ctx, `invalid argument "${String(flags['udp-port'])}" for "--udp-port" flag`);
  const listeners: PodServerListener[] = [{ proto: 'http', port: http, answer: 'netexec' }];
  if (udp !== -1) listeners.push({ proto: 'udp', port: udp, answer: 'netexec' });
  ctx.write('stderr', goLog(`Started HTTP server on port ${http}`));
  return serve(ctx, listeners, goLog);
};

const AGNHOST_SUBCOMMANDS: Record<string, Program> = { 'serve-hostname': serveHostname, netexec };

/** `/agnhost SUBCOMMAND …`: the subcommand's program; the ones not emulated just run. */
const agnhost: Program = (ctx) => {
  const sub = ctx.argv[1] ?? '';
  const program = Object.hasOwn(AGNHOST_SUBCOMMANDS, sub) ? AGNHOST_SUBCOMMANDS[sub] : undefined;
  return program ? program({ ...ctx, argv: ctx.argv.slice(1) }) : untilStopped(ctx);
};

/** What nginx's default site (/etc/nginx/conf.d/default.conf) serves; any other path is its 404 page. */
const NGINX_PATHS = ['/', '/index.html', '/50x.html'];

const nginx: Program = (ctx) => serve(ctx, [{ proto: 'http', port: 80, answer: 'page', paths: NGINX_PATHS }], (line) => `${line}\n`, NGINX_PAGE);

/** docker-entrypoint.sh execs its arguments: nginx (the image's CMD when none) serves, anything else just runs. */
const dockerEntrypoint: Program = (ctx) => {
  const next = ctx.argv[1];
  return next === undefined || /^nginx(?:-debug)?$/.test(next.slice(next.lastIndexOf('/') + 1)) ? nginx(ctx) : untilStopped(ctx);
};

export const BACKEND_IMAGES: ImageSpec[] = [
  // The image's ENTRYPOINT is /agnhost (test/images/agnhost/Dockerfile); pods name the subcommand in args, which
  // the runtime appends to it (its CMD, pause, runs when they name none: here the entrypoint alone just runs).
  {
    image: AGNHOST_IMAGE,
    entrypoint: ['/agnhost'],
    programs: { agnhost, ...AGNHOST_SUBCOMMANDS },
    listens: true,
    idle: (argv) => basename(argv[0]) === 'agnhost' && !Object.hasOwn(AGNHOST_SUBCOMMANDS, argv[1] ?? ''),
  },
  // The official image's ENTRYPOINT /docker-entrypoint.sh runs its arguments (CMD: nginx -g 'daemon off;').
  // Without a data plane nginx serves nothing (serve) and docker-entrypoint.sh runs nginx or just runs: both only wait.
  {
    image: NGINX_IMAGE,
    entrypoint: ['/docker-entrypoint.sh'],
    programs: { 'docker-entrypoint.sh': dockerEntrypoint, nginx },
    listens: true,
    idle: (argv) => ['docker-entrypoint.sh', 'nginx'].includes(basename(argv[0])),
  },
];
