// The catalogue of CNI agents aksemu emulates: one entry per image of a CNI project (program.ts says what an
// entry holds). The container runtime looks a container up here by its image and argv; an image that is not
// here keeps the generic behaviour of processes.ts (and its honest errors).
import { CALICO_IMAGES } from './calico.js';
import { CILIUM_IMAGES } from './cilium.js';
import { FLANNEL_IMAGES } from './flannel.js';
import type { ImageSpec, Program } from './program.js';
import { TIGERA_IMAGES } from './tigera.js';

export const CATALOGUE: readonly ImageSpec[] = [...FLANNEL_IMAGES, ...CALICO_IMAGES, ...TIGERA_IMAGES, ...CILIUM_IMAGES];

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
