// cloud-provider-azure's load-balancer side (EnsureLoadBalancer, EnsureLoadBalancerDeleted in
// kubernetes-sigs/cloud-provider-azure pkg/provider/azure_loadbalancer.go) against aksemu's Microsoft.Network records:
// a Service of type LoadBalancer gets a frontend on the `kubernetes` load balancer (a public IP of its own, named, or
// found by address) or on `kubernetes-internal` (an address of the node subnet, or of the subnet the annotation
// names), its rules and probes (load-balancer-rules.ts), and the address for status.loadBalancer.ingress. Everything
// is written through the same validation as an ARM PUT (providers/network/managed.ts), so the records are what
// `az network lb show` reads, and they survive a restart as every ARM resource does (docs/aks-rules.md §12).
import type { ClusterRecord } from '../../model/cluster-records.js';
import { nodesOf, poolsOf } from '../../model/cluster-records.js';
import { Cidr, IpAddress } from '../../net/ip.js';
import type { Store } from '../../store/store.js';
import { ArmError } from '../../arm/errors.js';
import { managedSubnetId, nodeResourceGroupId } from '../../providers/containerservice/network.js';
import { deleteLoadBalancer, deletePublicIp, loadBalancerInputOf, putLoadBalancer, putPublicIp } from '../../providers/network/managed.js';
import type { LoadBalancerInput } from '../../providers/network/loadBalancerModel.js';
import type { LoadBalancer, PublicIpAddress } from '../../providers/network/models.js';
import { findSubnet } from '../../providers/network/subnetModel.js';
import { validateResourceGroupName } from '../../arm/names.js';
import { parentOf } from '../../providers/network/resource.js';
import { sameId } from '../../ids/compare.js';
import type { Service } from '../apimachinery/types.js';
import { AKS_CLUSTER_NAME, ANNOTATIONS, defaultLoadBalancerName, frontendName, isInternal, loadBalancerName, publicIpName } from './load-balancer-names.js';
import { expectedRules, portsProblem } from './load-balancer-rules.js';

/** The tags cloud-provider-azure puts on the public IPs it creates (consts.ServiceTagKey, consts.ClusterNameKey). */
const SERVICE_TAG = 'k8s-azure-service';
const CLUSTER_TAG = 'k8s-azure-cluster-name';
const POOL = AKS_CLUSTER_NAME;
/** A subnet name as ARM takes it (no path separators: the annotation becomes part of an id). */
const NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,79}$/;

/** A failure as the service controller reports it (SyncLoadBalancerFailed). */
export class LoadBalancerError extends Error {}

const serviceName = (svc: Service) => `${svc.metadata.namespace}/${svc.metadata.name}`;

/** The Service's IPv4 address of choice: the azure-load-balancer-ipv4 annotation, else an IPv4 spec.loadBalancerIP (getServiceLoadBalancerIP). */
export function requestedAddress(svc: Service): string | undefined {
  const annotated = svc.metadata.annotations?.[ANNOTATIONS.ipv4];
  if (annotated) return annotated;
  const spec = svc.spec?.loadBalancerIP;
  return spec && IpAddress.tryParse(spec)?.family === 4 ? spec : undefined;
}

/** Azure's reserved addresses beside the private ranges (cloud-provider-azure azureReservedIPPrefixes). */
const NOT_PUBLIC = ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '127.0.0.0/8', '169.254.0.0/16', '224.0.0.0/4', '0.0.0.0/8', '168.63.129.16/32'];

/** validatePublicIPCandidate, wrapped as NewExternalServiceLoadBalancerIPError wraps it (pkg/provider/errors/loadbalancer_ip.go). */
function checkPublicCandidate(svc: Service, ip: string): void {
  const addr = IpAddress.tryParse(ip);
  if (!addr || addr.family !== 4) throw new LoadBalancerError(`external Service "${serviceName(svc)}" has invalid LoadBalancer IP "${ip}"`);
  if (NOT_PUBLIC.some((cidr) => Cidr.parse(cidr).contains(addr)) || ip === '255.255.255.255')
    throw new LoadBalancerError(
      `external Service "${serviceName(svc)}" cannot use non-public LoadBalancer IP "${ip}"; use an internal LoadBalancer annotation or a valid Azure Public IP address`,
    );
}

/** An ARM refusal as the Azure SDK's error reaches the controller: the status, the code and the message. */
function armFailure(e: unknown): never {
  if (e instanceof ArmError) throw new LoadBalancerError(`RESPONSE ${e.status}: ERROR CODE: ${e.code}: ${e.message}`);
  throw e;
}

export class AzureLoadBalancers {
  constructor(
    private readonly store: Store,
    private readonly cluster: () => ClusterRecord,
  ) {}

  private get group(): string {
    return nodeResourceGroupId(this.cluster());
  }

  private lbId(internal: boolean): string {
    return `${this.group}/providers/Microsoft.Network/loadBalancers/${loadBalancerName(internal)}`;
  }

  /** The subnet the cluster's nodes are on: the first node's, else the first pool's, else the managed one. */
  private nodeSubnetId(): string {
    const cluster = this.cluster();
    const node = nodesOf(this.store, cluster)[0];
    if (node) return node.subnetId;
    return poolsOf(this.store, cluster).find((p) => p.resolved.vnetSubnetID)?.resolved.vnetSubnetID ?? managedSubnetId(cluster);
  }

  /** Whether anything of the Service is on a load balancer (the controller's GetLoadBalancer). */
  exists(svc: Service): boolean {
    const prefix = defaultLoadBalancerName(String(svc.metadata.uid));
    return [true, false].some((internal) =>
      this.store.get<LoadBalancer>(this.lbId(internal))?.properties.frontendIPConfigurations.some((f) => f.name.startsWith(prefix)),
    );
  }

  /** EnsureLoadBalancer: the Service's frontend, rules and probes; returns the ingress address. */
  ensure(svc: Service): string {
    const problem = portsProblem(svc);
    if (problem) throw new LoadBalancerError(problem);
    const internal = isInternal(svc.metadata.annotations);
    try {
      // A Service that moved between public and internal leaves the other load balancer first.
      this.removeFrom(svc, !internal);
      return internal ? this.ensureInternal(svc) : this.ensurePublic(svc);
    } catch (e) {
      return armFailure(e);
    }
  }

  private ensurePublic(svc: Service): string {
    const cluster = this.cluster();
    const pip = this.publicIpFor(svc, cluster);
    return this.putFrontend(svc, false, { publicIPAddress: { id: pip.id } }, undefined).address ?? pip.properties.ipAddress!;
  }

  /** determinePublicIPName and ensurePublicIPExists: the named IP, the IP with the asked address, or our own. */
  /** The public IPs' group: the resource-group annotation's (a valid group name, checked before it names a key), else the node resource group. */
  private publicIpGroup(svc: Service, cluster: ClusterRecord): { id: string; name: string } {
    const name = svc.metadata.annotations?.[ANNOTATIONS.resourceGroup]?.trim();
    if (!name) return { id: this.group, name: cluster.nodeResourceGroup };
    validateResourceGroupName(name);
    return { id: `/subscriptions/${cluster.subscriptionId}/resourceGroups/${name}`, name };
  }

  private publicIpFor(svc: Service, cluster: ClusterRecord): PublicIpAddress {
    const { id: rg, name: group } = this.publicIpGroup(svc, cluster);
    const pips = this.store
      .list<PublicIpAddress>(`${rg}/providers/Microsoft.Network/publicIPAddresses/`)
      .map((e) => e.value)
      .filter((p) => p.type === 'Microsoft.Network/publicIPAddresses');
    const named = svc.metadata.annotations?.[ANNOTATIONS.pipName];
    if (named) {
      const found = pips.find((p) => p.name.toLowerCase() === named.toLowerCase());
      if (!found) throw new LoadBalancerError(`PublicIP from annotation azure-pip-name(-IPv6)=${named} for service ${serviceName(svc)} doesn't exist`);
      return found;
    }
    const address = requestedAddress(svc);
    if (address) {
      checkPublicCandidate(svc, address);
      const found = pips.find((p) => p.properties.ipAddress === address);
      if (!found)
        throw new LoadBalancerError(
          `findMatchedPIPByLoadBalancerIP: cannot find public IP with IP address ${address} in resource group ${group}: getExpectedPIPFromListByIPAddress: cannot find public IP with IP address ${address}`,
        );
      return found;
    }
    if (!this.store.get(rg)) throw new ArmError(404, 'ResourceGroupNotFound', `Resource group '${group}' could not be found.`);
    const id = `${rg}/providers/Microsoft.Network/publicIPAddresses/${publicIpName(String(svc.metadata.uid))}`;
    const existing = pips.find((p) => sameId(p.id, id));
    if (existing) return existing;
    return putPublicIp(this.store, id, { location: cluster.location, tags: { [SERVICE_TAG]: serviceName(svc), [CLUSTER_TAG]: AKS_CLUSTER_NAME } });
  }

  private ensureInternal(svc: Service): string {
    const subnetName = svc.metadata.annotations?.[ANNOTATIONS.internalSubnet]?.trim() || undefined;
    const nodeSubnet = this.nodeSubnetId();
    const subnetId = subnetName ? `${parentOf(nodeSubnet)}/subnets/${subnetName}` : nodeSubnet;
    const subnet = !subnetName || NAME.test(subnetName) ? findSubnet(this.store, subnetId) : undefined;
    if (!subnet)
      throw new LoadBalancerError(
        `ensure(${serviceName(svc)}): lb(${loadBalancerName(true)}) - failed to get subnet: ${parentOf(nodeSubnet).split('/').pop()}/${subnetName ?? subnetId.split('/').pop()}`,
      );
    const address = requestedAddress(svc);
    const frontend = address
      ? { subnet: { id: subnet.id }, privateIPAllocationMethod: 'Static', privateIPAddress: address }
      : { subnet: { id: subnet.id }, privateIPAllocationMethod: 'Dynamic' };
    return this.putFrontend(svc, true, frontend, subnetName).address!;
  }

  /** Writes the load balancer with this Service's frontend, rules and probes replaced; returns the frontend's private address. */
  private putFrontend(
    svc: Service,
    internal: boolean,
    frontend: NonNullable<NonNullable<LoadBalancerInput['properties']>['frontendIPConfigurations']>[number]['properties'],
    internalSubnet: string | undefined,
  ): { address?: string } {
    const cluster = this.cluster();
    const uid = String(svc.metadata.uid);
    const lbId = this.lbId(internal);
    const existing = this.store.get<LoadBalancer>(lbId);
    const input: LoadBalancerInput = existing ? loadBalancerInputOf(existing) : { location: cluster.location, sku: { name: 'Standard' }, properties: {} };
    const props = (input.properties ??= {});
    const prefix = defaultLoadBalancerName(uid);
    const mine = (name: string | undefined) => !!name?.startsWith(prefix);
    const name = frontendName(uid, internalSubnet);
    const before = existing?.properties.frontendIPConfigurations.find((f) => f.name === name);
    // A Dynamic internal frontend keeps its address across updates (cloud-provider-azure keeps the ingress IP).
    const kept =
      before?.properties.privateIPAddress &&
      frontend?.privateIPAllocationMethod === 'Dynamic' &&
      sameId(before.properties.subnet?.id, frontend.subnet?.id ?? undefined)
        ? { privateIPAddress: before.properties.privateIPAddress }
        : {};
    props.frontendIPConfigurations = [...(props.frontendIPConfigurations ?? []).filter((f) => !mine(f.name)), { name, properties: { ...frontend, ...kept } }];
    const pools = (props.backendAddressPools ??= []);
    if (!pools.some((p) => p.name === POOL)) pools.push({ name: POOL });
    const { rules, probes } = expectedRules(svc, {
      lbId,
      frontendId: `${lbId}/frontendIPConfigurations/${name}`,
      poolId: `${lbId}/backendAddressPools/${POOL}`,
      ...(internalSubnet ? { internalSubnet } : {}),
    });
    props.loadBalancingRules = [...(props.loadBalancingRules ?? []).filter((r) => !mine(r.name)), ...rules];
    props.probes = [...(props.probes ?? []).filter((p) => !mine(p.name)), ...probes];
    const lb = putLoadBalancer(this.store, lbId, input);
    const written = lb.properties.frontendIPConfigurations.find((f) => f.name === name);
    return written?.properties.privateIPAddress ? { address: written.properties.privateIPAddress } : {};
  }

  /** EnsureLoadBalancerDeleted: the Service's frontends, rules and probes go, and the public IP it owns. */
  remove(svc: Service): void {
    try {
      this.removeFrom(svc, true);
      this.removeFrom(svc, false);
    } catch (e) {
      armFailure(e);
    }
  }

  private removeFrom(svc: Service, internal: boolean): void {
    const uid = String(svc.metadata.uid);
    const prefix = defaultLoadBalancerName(uid);
    const mine = (name: string | undefined) => !!name?.startsWith(prefix);
    const lbId = this.lbId(internal);
    const existing = this.store.get<LoadBalancer>(lbId);
    if (existing?.properties.frontendIPConfigurations.some((f) => mine(f.name))) {
      const input = loadBalancerInputOf(existing);
      const props = input.properties!;
      props.frontendIPConfigurations = (props.frontendIPConfigurations ?? []).filter((f) => !mine(f.name));
      props.loadBalancingRules = (props.loadBalancingRules ?? []).filter((r) => !mine(r.name));
      props.probes = (props.probes ?? []).filter((p) => !mine(p.name));
      // An internal load balancer with no frontend left is deleted (cloud-provider-azure: an LB without frontends goes).
      if (internal && props.frontendIPConfigurations.length === 0) deleteLoadBalancer(this.store, existing);
      else putLoadBalancer(this.store, lbId, input);
    }
    if (!internal) this.releaseOwnPublicIp(svc);
  }

  /** The public IPs this Service owns (tagged with it by name) go; a user's IP, named or found by address, stays. */
  private releaseOwnPublicIp(svc: Service): void {
    let rg: string;
    try {
      rg = this.publicIpGroup(svc, this.cluster()).id;
    } catch {
      return;
    }
    const pip = this.store.get<PublicIpAddress>(`${rg}/providers/Microsoft.Network/publicIPAddresses/${publicIpName(String(svc.metadata.uid))}`);
    if (pip && pip.tags?.[SERVICE_TAG] === serviceName(svc) && !pip.properties.ipConfiguration) deletePublicIp(this.store, pip);
  }
}
