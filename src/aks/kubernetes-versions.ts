// The Kubernetes versions an emulated location offers. AKS accepts "major.minor" and resolves it to the newest patch,
// which the seed templates rely on ("kubernetesVersion": "1.22").

export const KUBERNETES_VERSIONS: readonly string[] = [
  '1.21.9',
  '1.22.15',
  '1.23.15',
  '1.24.15',
  '1.25.15',
  '1.26.15',
  '1.27.16',
  '1.28.15',
  '1.29.15',
  '1.30.14',
  '1.31.13',
  '1.32.9',
  '1.33.5',
];

/** The version a cluster gets when none is asked for: N-1 of the newest, as AKS picks its default. */
export const DEFAULT_KUBERNETES_VERSION = '1.32.9';

/** Resolves "1.22" or "1.22.15" to a catalogue version, or undefined when it is not offered. */
export function resolveKubernetesVersion(requested: string | undefined): string | undefined {
  if (requested === undefined || requested === '') return DEFAULT_KUBERNETES_VERSION;
  const text = requested.trim().replace(/^v/, '');
  if (/^\d+\.\d+$/.test(text)) {
    const matches = KUBERNETES_VERSIONS.filter((v) => v.startsWith(`${text}.`));
    return matches[matches.length - 1];
  }
  return KUBERNETES_VERSIONS.includes(text) ? text : undefined;
}

/** Whether the catalogue offers this exact version (a resolved one: "1.22.15", not "1.22"). */
export function isOfferedVersion(version: string): boolean {
  return KUBERNETES_VERSIONS.includes(version);
}

/**
 * How many minor versions a node pool may trail its control plane: three from control plane 1.28, two
 * before (docs/aks-rules.md §2.4 V3). A pool is never newer than the control plane (V2).
 */
export function maxPoolMinorSkew(controlPlane: string): number {
  return minorOf(controlPlane) >= 28 ? 3 : 2;
}

export function minorOf(version: string): number {
  return Number(version.split('.')[1] ?? 0);
}

/** Orders "1.9.3" before "1.10.0": numerically, part by part. */
export function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  return 0;
}
