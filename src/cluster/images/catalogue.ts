// The catalogue of images aksemu emulates: one entry per image of a CNI project, the cluster DNS (coredns.ts), and
// the backend images users put behind Services (backends.ts); program.ts says what an entry holds. The container
// runtime looks a container up here by its image and argv; an image that is not
// here keeps the generic behaviour of processes.ts (and its honest errors).
import { BACKEND_IMAGES } from './backends.js';
import { CALICO_IMAGES } from './calico.js';
import { CILIUM_IMAGES } from './cilium.js';
import { COREDNS_IMAGES } from './coredns.js';
import { FLANNEL_IMAGES } from './flannel.js';
import { parseScript, ShellSyntaxError } from './init-shell.js';
import { SHELLS } from './processes.js';
import type { ImageSpec, Program } from './program.js';
import { TIGERA_IMAGES } from './tigera.js';

export const CATALOGUE: readonly ImageSpec[] = [...FLANNEL_IMAGES, ...CALICO_IMAGES, ...TIGERA_IMAGES, ...CILIUM_IMAGES, ...COREDNS_IMAGES, ...BACKEND_IMAGES];

/** The image reference without its tag and digest: `ghcr.io/flannel-io/flannel:v0.28.9@sha256:…` → `ghcr.io/flannel-io/flannel`. */
export function imageRepository(image: string): string {
  const noDigest = image.split('@')[0] ?? '';
  const slash = noDigest.lastIndexOf('/');
  const colon = noDigest.lastIndexOf(':');
  return colon > slash ? noDigest.slice(0, colon) : noDigest;
}

export function imageSpecOf(image: string): ImageSpec | undefined {
  const repo = imageRepository(image);
  return CATALOGUE.find((s) => s.image.test(repo));
}

/** The program an argv runs in that image: by its full path first, then by basename. */
export function programOf(spec: ImageSpec, argv0: string): Program | undefined {
  const base = argv0.slice(argv0.lastIndexOf('/') + 1);
  return Object.hasOwn(spec.programs, argv0) ? spec.programs[argv0] : Object.hasOwn(spec.programs, base) ? spec.programs[base] : undefined;
}

/**
 * What a container of a catalogued image runs, from its argv (command + args, or the image's entrypoint when it
 * names none): the program of argv[0]; for `sh -c SCRIPT` (or bash…) the program the script's first command
 * names (after `exec`), with that command's words as its argv; for `sh SCRIPT-PATH` the script's program.
 */
export function programFor(spec: ImageSpec, argv: string[], env: Record<string, string>): { program: Program; argv: string[] } | undefined {
  const words = argv.length > 0 ? argv : (spec.entrypoint ?? []);
  const [argv0 = '', ...rest] = words;
  const direct = programOf(spec, argv0);
  if (direct) return { program: direct, argv: words };
  if (!SHELLS.has(argv0.slice(argv0.lastIndexOf('/') + 1))) return undefined;
  const flag = rest.findIndex((a) => /^-[a-z]*c[a-z]*$/.test(a));
  if (flag < 0) {
    // `sh /install-plugin.sh ARGS`: the script is the program.
    const script = rest.find((a) => !a.startsWith('-'));
    const program = script ? programOf(spec, script) : undefined;
    return program ? { program, argv: rest.slice(rest.indexOf(script!)) } : undefined;
  }
  let first: string[];
  try {
    first = parseScript(rest[flag + 1] ?? '', env)[0]?.argv ?? [];
  } catch (e) {
    if (e instanceof ShellSyntaxError) return undefined;
    throw e;
  }
  if (first[0] === 'exec') first = first.slice(1);
  const program = first[0] ? programOf(spec, first[0]) : undefined;
  return program ? { program, argv: first } : undefined;
}
