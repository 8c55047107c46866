// The node image a pool's nodes run, by OS SKU and Kubernetes version, as data (docs/aks-rules.md §3.9): what the
// pool reports as `nodeImageVersion` and what its nodes show (the `kubernetes.azure.com/node-image-version` and
// `os-sku` labels, nodeInfo's osImage, kernel and runtime), from one table so the two always agree.
import { minorOf } from './kubernetes-versions.js';

export interface NodeImage {
  /** The pool's nodeImageVersion and the node's node-image-version label: `<family>-<version>`. */
  nodeImageVersion: string;
  /** The node's `kubernetes.azure.com/os-sku` label. */
  osSku: string;
  /** nodeInfo.operatingSystem and the `kubernetes.io/os` label. */
  operatingSystem: 'linux' | 'windows';
  osImage: string;
  kernelVersion: string;
  containerRuntimeVersion: string;
}

type Family = Omit<NodeImage, 'osSku'>;

// Image families as AKS names them (AgentBaker's targets; mspnp/aks-baseline#460 shows `AKSUbuntu-2204gen2containerd-
// 202402.26.0` and `AKSAzureLinux-V3gen2-202402.26.0`), each at one release of aksemu's choosing. osImage is the
// image's /etc/os-release PRETTY_NAME as the kubelet reports it; Windows nodes report the edition and build
// (`Windows Server 2019 Datacenter`, `10.0.17763.2366`: Azure/AKS#2749).
const FAMILIES = {
  ubuntu1804: {
    nodeImageVersion: 'AKSUbuntu-1804gen2containerd-202307.04.0',
    operatingSystem: 'linux',
    osImage: 'Ubuntu 18.04.6 LTS',
    kernelVersion: '5.4.0-1104-azure',
    containerRuntimeVersion: 'containerd://1.6.4+azure-4',
  },
  ubuntu2204: {
    nodeImageVersion: 'AKSUbuntu-2204gen2containerd-202509.23.0',
    operatingSystem: 'linux',
    osImage: 'Ubuntu 22.04.5 LTS',
    kernelVersion: '5.15.0-1092-azure',
    containerRuntimeVersion: 'containerd://1.7.27-1',
  },
  ubuntu2404: {
    nodeImageVersion: 'AKSUbuntu-2404gen2containerd-202509.23.0',
    operatingSystem: 'linux',
    osImage: 'Ubuntu 24.04.3 LTS',
    kernelVersion: '6.8.0-1034-azure',
    containerRuntimeVersion: 'containerd://1.7.27-1',
  },
  mariner2: {
    nodeImageVersion: 'AKSCBLMariner-V2gen2-202509.23.0',
    operatingSystem: 'linux',
    osImage: 'CBL-Mariner/Linux',
    kernelVersion: '5.15.186.1-1.cm2',
    containerRuntimeVersion: 'containerd://1.6.26',
  },
  azureLinux2: {
    nodeImageVersion: 'AKSAzureLinux-V2gen2-202509.23.0',
    operatingSystem: 'linux',
    osImage: 'CBL-Mariner/Linux',
    kernelVersion: '5.15.186.1-1.cm2',
    containerRuntimeVersion: 'containerd://1.6.26',
  },
  azureLinux3: {
    nodeImageVersion: 'AKSAzureLinux-V3gen2-202509.23.0',
    operatingSystem: 'linux',
    osImage: 'Microsoft Azure Linux 3.0',
    kernelVersion: '6.6.96.1-1.azl3',
    containerRuntimeVersion: 'containerd://2.0.0',
  },
  windows2019: {
    nodeImageVersion: 'AKSWindows-2019-containerd-17763.7792.250910',
    operatingSystem: 'windows',
    osImage: 'Windows Server 2019 Datacenter',
    kernelVersion: '10.0.17763.7792',
    containerRuntimeVersion: 'containerd://1.6.35+azure',
  },
  windows2022: {
    nodeImageVersion: 'AKSWindows-2022-containerd-20348.4171.250910',
    operatingSystem: 'windows',
    osImage: 'Windows Server 2022 Datacenter',
    kernelVersion: '10.0.20348.4171',
    containerRuntimeVersion: 'containerd://1.7.20+azure',
  },
} satisfies Record<string, Family>;

/**
 * The family of an OS SKU at a Kubernetes minor: Ubuntu is 18.04 before 1.25 and 22.04 from it (CHANGELOG 2022-09);
 * AzureLinux is Azure Linux 2.0 before 1.32 and 3.0 from it (Azure/karpenter-provider-azure#914, "Azure Linux v3,
 * which should be used from AKS/Kubernetes v1.32 onwards"); CBLMariner and Mariner stay on CBL-Mariner 2.0.
 */
function familyOf(osSku: string, minor: number): Family {
  switch (osSku.toLowerCase()) {
    case 'azurelinux':
      return minor >= 32 ? FAMILIES.azureLinux3 : FAMILIES.azureLinux2;
    case 'azurelinux3':
      return FAMILIES.azureLinux3;
    case 'cblmariner':
    case 'mariner':
      return FAMILIES.mariner2;
    case 'ubuntu2204':
      return FAMILIES.ubuntu2204;
    case 'ubuntu2404':
      return FAMILIES.ubuntu2404;
    case 'windows2019':
      return FAMILIES.windows2019;
    case 'windows2022':
    // aksemu has no image of these yet: their nodes show Windows Server 2022's (docs/aks-rules.md §3.9).
    case 'windows2025':
    case 'windowsannual':
      return FAMILIES.windows2022;
    default:
      return minor < 25 ? FAMILIES.ubuntu1804 : FAMILIES.ubuntu2204;
  }
}

/** The image of a pool with `osSKU` (already defaulted, src/aks/defaults.ts) at Kubernetes `version`. */
export function nodeImageOf(osSku: string, version: string): NodeImage {
  return { ...familyOf(osSku, minorOf(version)), osSku };
}
