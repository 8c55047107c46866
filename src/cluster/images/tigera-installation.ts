// The tigera operator's reading of an `Installation` (operator.tigera.io/v1): the defaults it fills in and writes
// back to the spec, the checks it makes before rendering, and its image references. Sources (tigera/operator
// v1.42.3, the release tigera-operator.yaml of Calico v3.32.1 names): pkg/controller/installation/
// core_controller.go (fillDefaults), pkg/controller/ippool/defaults.go (the IP pools' defaults),
// pkg/components/references.go and images.go (registry + imagePath + image:version), config/calico_versions.yml.
import { posix } from 'node:path';
import { isPlainObject, own } from '../../http/own.js';
import { Cidr } from '../../net/ip.js';

export const CALICO_VERSION = 'v3.32.1';
export const OPERATOR_VERSION = 'v1.42.3';
/** Bounds on what a user's Installation may ask for (the CRD allows any length; the emulation does not need more). */
const MAX_POOLS = 16;

type Obj = Record<string, unknown>;

/** A pool CIDR, or undefined when it does not parse (the operator's ParseCIDR accepts host bits set). */
function parseCidr(text: string): { family: 4 | 6; prefix: number } | undefined {
  try {
    const c = Cidr.parse(text, { canonical: false });
    return { family: c.family, prefix: c.prefix };
  } catch {
    return undefined;
  }
}

export interface Pool {
  name: string;
  cidr: string;
  blockSize: number;
  encapsulation: string;
  natOutgoing: string;
  nodeSelector: string;
  allowedUses: string[];
  disableNewAllocations: boolean;
  disableBGPExport?: boolean;
  assignmentMode: string;
}

/** The spec after the operator's defaulting, as the operator writes it back and renders from it. */
export interface InstallationSpec extends Obj {
  variant: string;
  kubernetesProvider?: string;
  registry?: string;
  imagePath?: string;
  imagePrefix?: string;
  cni: { type: string; ipam: { type: string }; binDir: string; confDir: string };
  calicoNetwork: Obj & { bgp: string; linuxDataplane: string; ipPools: Pool[]; hostPorts?: string; mtu?: number };
  flexVolumePath: string;
  kubeletVolumePluginPath: string;
  controlPlaneReplicas: number;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const obj = (v: unknown): Obj => (isPlainObject(v) ? { ...v } : {});

/** `Invalid Installation provided` with why, as the operator's validation reports it (validation.go). */
export class InvalidInstallation extends Error {}

/** fillDefaults' FlexVolumePath by provider. */
const FLEXVOLUME_PATHS: Record<string, string> = {
  OpenShift: '/etc/kubernetes/kubelet-plugins/volume/exec/',
  GKE: '/home/kubernetes/flexvolume/',
  AKS: '/etc/kubernetes/volumeplugins/',
  RKE2: '/var/lib/kubelet/volumeplugins/',
};

/** The pool defaults of ippool/defaults.go: IPIP for Calico CNI (v4), VXLAN cross-subnet only when asked. */
function poolDefaults(raw: unknown, cniType: string, count: number): Pool {
  const p = obj(raw);
  const cidr = str(p['cidr']) ?? '';
  const parsed = parseCidr(cidr);
  if (!parsed) throw new InvalidInstallation(`IP pool CIDR (${cidr}) is invalid`);
  const v4 = parsed.family === 4;
  const blockSize = typeof p['blockSize'] === 'number' ? p['blockSize'] : v4 ? 26 : 122;
  if (!Number.isInteger(blockSize) || blockSize < (v4 ? 20 : 116) || blockSize > (v4 ? 32 : 128))
    throw new InvalidInstallation(`ipPool.blockSize must be between ${v4 ? 20 : 116} and ${v4 ? 32 : 128}`);
  if (blockSize < parsed.prefix) throw new InvalidInstallation(`IP pool size is too small. It must be equal to or greater than the block size.`);
  const encapsulation = str(p['encapsulation']) || (v4 && cniType === 'Calico' ? 'IPIP' : 'None');
  if (!['IPIP', 'IPIPCrossSubnet', 'VXLAN', 'VXLANCrossSubnet', 'None'].includes(encapsulation))
    throw new InvalidInstallation(`ipPool.encapsulation value ${encapsulation} is invalid`);
  const uses = own<unknown[]>(p, 'allowedUses');
  const pool: Pool = {
    name: str(p['name']) || (count === 1 ? (v4 ? 'default-ipv4-ippool' : 'default-ipv6-ippool') : cidr.replace(/[./:]/g, '-')),
    cidr,
    blockSize,
    encapsulation,
    natOutgoing: str(p['natOutgoing']) || (v4 ? 'Enabled' : 'Disabled'),
    nodeSelector: str(p['nodeSelector']) || 'all()',
    allowedUses: Array.isArray(uses) && uses.length > 0 ? uses.filter((u): u is string => typeof u === 'string') : ['Workload', 'Tunnel'],
    disableNewAllocations: p['disableNewAllocations'] === true,
    assignmentMode: str(p['assignmentMode']) || 'Automatic',
  };
  if (typeof p['disableBGPExport'] === 'boolean') pool.disableBGPExport = p['disableBGPExport'];
  return pool;
}

/** fillDefaults (core_controller.go) and the IP pool controller's fillDefaults, for a cluster without IP pools
 * and without a kubeadm-config ConfigMap (an AKS cluster): the result is what the operator writes back. */
export function fillDefaults(specIn: unknown): InstallationSpec {
  const spec = obj(specIn);
  const provider = str(spec['kubernetesProvider']) ?? '';
  const cni = obj(spec['cni']);
  const cniType = str(cni['type']) || ({ AKS: 'AzureVNET', EKS: 'AmazonVPC', GKE: 'GKE' } as Record<string, string>)[provider] || 'Calico';
  const ipam = obj(cni['ipam']);
  const ipamType = str(ipam['type']) || ({ AzureVNET: 'AzureVNET', AmazonVPC: 'AmazonVPC', GKE: 'HostLocal' } as Record<string, string>)[cniType] || 'Calico';
  const net = obj(spec['calicoNetwork']);
  const linuxDataplane = str(net['linuxDataplane']) || 'Iptables';
  const bgp = str(net['bgp']) || (cniType === 'Calico' && provider !== 'EKS' ? 'Enabled' : 'Disabled');
  const rawPools = own<unknown[]>(net, 'ipPools');
  if (rawPools !== undefined && !Array.isArray(rawPools)) throw new InvalidInstallation('spec.calicoNetwork.ipPools must be a list');
  if ((rawPools?.length ?? 0) > MAX_POOLS) throw new InvalidInstallation(`at most ${MAX_POOLS} IP pools are supported`);
  // With Calico IPAM and no pools named, the operator makes the default pool (EKS: 172.16.0.0/16 VXLAN).
  const asked =
    rawPools ?? (ipamType === 'Calico' ? [provider === 'EKS' ? { cidr: '172.16.0.0/16', encapsulation: 'VXLAN' } : { cidr: '192.168.0.0/16' }] : []);
  const ipPools = asked.map((p) => poolDefaults(p, cniType, asked.length));
  const names = new Set(ipPools.map((p) => p.name));
  if (names.size !== ipPools.length) throw new InvalidInstallation('IP pool names must be unique');
  if (cniType === 'Calico' && bgp === 'Disabled' && ipPools.some((p) => p.encapsulation.startsWith('IPIP')))
    throw new InvalidInstallation('IPIP encapsulation is not supported by Calico networking when BGP is disabled');
  const calicoNetwork: InstallationSpec['calicoNetwork'] = {
    ...net,
    bgp,
    linuxDataplane,
    windowsDataplane: str(net['windowsDataplane']) || 'Disabled',
    ipPools,
  };
  if (ipPools.some((p) => parseCidr(p.cidr)?.family === 4) && calicoNetwork['nodeAddressAutodetectionV4'] === undefined)
    calicoNetwork['nodeAddressAutodetectionV4'] = { firstFound: true };
  if (ipPools.some((p) => parseCidr(p.cidr)?.family === 6) && calicoNetwork['nodeAddressAutodetectionV6'] === undefined)
    calicoNetwork['nodeAddressAutodetectionV6'] = { firstFound: true };
  if (cniType === 'Calico') {
    if (linuxDataplane === 'Iptables' && calicoNetwork['linuxPolicySetupTimeoutSeconds'] === undefined) calicoNetwork['linuxPolicySetupTimeoutSeconds'] = 0;
    calicoNetwork.hostPorts = str(net['hostPorts']) || 'Enabled';
    calicoNetwork['multiInterfaceMode'] = str(net['multiInterfaceMode']) || 'None';
  }
  const out: InstallationSpec = {
    ...spec,
    variant: str(spec['variant']) || 'Calico',
    cni: {
      ...cni,
      type: cniType,
      ipam: { ...ipam, type: ipamType },
      binDir: str(cni['binDir']) || '/opt/cni/bin',
      confDir: str(cni['confDir']) || '/etc/cni/net.d',
    },
    calicoNetwork,
    flexVolumePath: str(spec['flexVolumePath']) || FLEXVOLUME_PATHS[provider] || '/usr/libexec/kubernetes/kubelet-plugins/volume/exec/',
    kubeletVolumePluginPath: str(spec['kubeletVolumePluginPath']) || '/var/lib/kubelet',
    controlPlaneReplicas: typeof spec['controlPlaneReplicas'] === 'number' ? spec['controlPlaneReplicas'] : 2,
    nonPrivileged: str(spec['nonPrivileged']) || 'Disabled',
    fipsMode: str(spec['fipsMode']) || 'Disabled',
    nodeUpdateStrategy: {
      type: 'RollingUpdate',
      ...obj(spec['nodeUpdateStrategy']),
      rollingUpdate: { maxUnavailable: 1, ...obj(obj(spec['nodeUpdateStrategy'])['rollingUpdate']) },
    },
  };
  if (provider === 'AKS' && spec['azure'] === undefined) out['azure'] = { policyMode: 'Default' };
  if (cniType === 'Calico') {
    const logging = obj(spec['logging']);
    out['logging'] = { ...logging, cni: { logSeverity: 'Info', logFileMaxCount: 10, logFileMaxAgeDays: 30, logFileMaxSize: '100Mi', ...obj(logging['cni']) } };
  }
  if (out.variant !== 'Calico') throw new InvalidInstallation(`variant ${out.variant} is not supported by this operator build`);
  return out;
}

/** GetReference (references.go): registry + imagePath + prefix + image, path-joined, then `:version`. */
export function imageRef(spec: Pick<InstallationSpec, 'registry' | 'imagePath' | 'imagePrefix'>, image: string): string {
  const registry = spec.registry && spec.registry !== 'UseDefault' ? spec.registry : 'quay.io/';
  const path = spec.imagePath && spec.imagePath !== 'UseDefault' ? spec.imagePath : 'calico/';
  const prefix = spec.imagePrefix && spec.imagePrefix !== 'UseDefault' ? spec.imagePrefix : '';
  return `${posix.join(registry, path, prefix + image)}:${CALICO_VERSION}`;
}
