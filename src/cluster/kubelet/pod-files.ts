// Where the kubelet keeps each pod's resolv.conf and hosts on its node (resolv-conf.ts says what they hold), so
// `kubectl exec` can bind-mount them as the pod's /etc/resolv.conf and /etc/hosts: the pod's directory
// /var/lib/kubelet/pods/<uid>/ under the node's root (the kubelet keeps etc-hosts there; containerd keeps
// resolv.conf in its sandbox directory, kept here beside it so both are found by the pod's uid). Written when the
// pod's sandbox is set up, removed when it is torn down; writes are asynchronous and in order per pod, so the
// attach path does not wait for them. And the node's own resolver, as on an Azure VM. docs/dataplane.md §14.3.
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { AZURE_DNS, internalDomainSuffix } from '../../aks/azure-dns.js';
import type { ClusterRecord } from '../../model/cluster-records.js';
import { POD_UID, podDir, podHostsPath, podResolvConfPath } from '../nodefs/node-root.js';
import type { KubeObject } from '../apimachinery/object.js';
import { CLUSTER_DOMAIN } from '../dns/zone.js';
import { type KubeletDns, podHostsText, podResolverConfig, type ResolverConfig, resolvConfText } from '../dns/resolv-conf.js';

/**
 * The node's resolv.conf as an AKS node's kubelet reads it: Azure DNS, and the search domain Azure-provided DNS
 * gives the VMs of its virtual network (aks/azure-dns.ts), derived from the cluster's node resource group (where its
 * managed virtual network lives), so it is stable per cluster.
 */
export function azureNodeResolver(cluster: Pick<ClusterRecord, 'nodeResourceGroup'>): ResolverConfig {
  return { nameservers: [AZURE_DNS], searches: [internalDomainSuffix(cluster.nodeResourceGroup)], options: [] };
}

/** The kubelet's DNS settings on an AKS node of this cluster. */
export function aksKubeletDns(cluster: ClusterRecord): KubeletDns {
  return { clusterDns: [cluster.resolved.network.dnsServiceIP], clusterDomain: CLUSTER_DOMAIN, node: azureNodeResolver(cluster) };
}

/** An AKS node's /etc/hosts (what a host-network pod's hosts file copies). */
const NODE_HOSTS =
  '127.0.0.1 localhost\n\n::1 ip6-localhost ip6-loopback\nfe00::0 ip6-localnet\nff00::0 ip6-mcastprefix\nff02::1 ip6-allnodes\nff02::2 ip6-allrouters\n';

/** The pod's /etc/resolv.conf and /etc/hosts as its kubelet writes them (and `kubectl exec` shows its tools). */
export function podEtcFiles(pod: KubeObject, kubelet: KubeletDns, podIps: string[]): { resolvConf: string; hosts: string } {
  return { resolvConf: resolvConfText(podResolverConfig(pod, kubelet)), hosts: podHostsText(pod, podIps, kubelet.clusterDomain, NODE_HOSTS) };
}

/** Writes and removes the pods' files, one operation at a time per pod, in the order asked. */
export class PodDnsFiles {
  private readonly chains = new Map<string, Promise<void>>();
  private closed = false;

  constructor(
    private readonly nodeRoot: (node: string) => string,
    private readonly kubelet: () => KubeletDns,
    private readonly log: (message: string) => void,
  ) {}

  private queue(uid: string, op: () => Promise<void>): void {
    // Work asked for after the runtime stopped is the next start's (its pods set up their sandboxes again).
    if (this.closed) return;
    const next = (this.chains.get(uid) ?? Promise.resolve())
      .then(op)
      .catch((e: unknown) => this.log(`kubelet: pod ${uid} DNS files: ${(e as Error).message ?? e}`));
    this.chains.set(uid, next);
    void next.then(() => {
      if (this.chains.get(uid) === next) this.chains.delete(uid);
    });
  }

  write(pod: KubeObject, node: string, podIps: string[]): void {
    const uid = pod.metadata.uid ?? '';
    const root = this.nodeRoot(node);
    const files = podEtcFiles(pod, this.kubelet(), podIps);
    this.queue(uid, async () => {
      await mkdir(podDir(root, uid), { recursive: true });
      await writeFile(podResolvConfPath(root, uid), files.resolvConf, { mode: 0o644 });
      await writeFile(podHostsPath(root, uid), files.hosts, { mode: 0o644 });
    });
  }

  remove(node: string, uid: string): void {
    if (!POD_UID.test(uid)) return;
    const root = this.nodeRoot(node);
    this.queue(uid, () => rm(podDir(root, uid), { recursive: true, force: true }));
  }

  /** The runtime stopped: nothing more is queued; settled() then says when what was queued is done. */
  close(): void {
    this.closed = true;
  }

  /** Resolves once every queued write and removal is done (tests, shutdown). */
  async settled(): Promise<void> {
    await Promise.all([...this.chains.values()]);
  }
}
