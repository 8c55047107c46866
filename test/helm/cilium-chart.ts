// Cilium's packaged chart as test/fixtures/cilium/SOURCE.md names it: where it is put, and why a test that
// installs it cannot run (not copied in, or not the bytes SOURCE.md names).
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { thirdPartyFile } from '../third-party.js';

export const CILIUM_CHART = thirdPartyFile('cilium', 'v1.19.6', 'cilium-1.19.6.tgz');
const SHA256 = '21c43cf53841f9ab0375047d95aa4c64051ea52bbd2c679416e6408f5f1c9179';

/** The flags Cilium's AKS BYOCNI install takes, with the cluster-pool on `podCidr`. */
export function aksByocniValues(podCidr: string): string[] {
  return ['--namespace', 'kube-system', '--set', 'aksbyocni.enabled=true', '--set', `ipam.operator.clusterPoolIPv4PodCIDRList={${podCidr}}`];
}

/** Why the chart cannot be installed here, or false. */
export function ciliumChartSkip(): string | false {
  if (!existsSync(CILIUM_CHART)) return `Cilium chart not in ${CILIUM_CHART} (node tools/copy-cilium-chart.mjs, see test/fixtures/cilium/SOURCE.md)`;
  if (createHash('sha256').update(readFileSync(CILIUM_CHART)).digest('hex') !== SHA256) return `${CILIUM_CHART} differs from test/fixtures/cilium/SOURCE.md`;
  return false;
}
