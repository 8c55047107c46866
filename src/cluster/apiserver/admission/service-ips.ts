// ClusterIP (and NodePort) allocation for Services, as the apiserver's allocators do it: dynamic addresses
// come from the upper part of the service CIDR (the lower band is kept for static requests), never the
// network or broadcast address nor one in use (the `kubernetes` service holds .1, kube-dns the DNS IP). A
// requested address outside the range or taken is refused with the apiserver's 422 Invalid Status.
import { randomInt } from 'node:crypto';
import { Cidr, IpAddress } from '../../../net/ip.js';
import type { KubeObject } from '../../apimachinery/object.js';
import type { Service, ServicePort } from '../../apimachinery/types.js';
import type { ObjectStore } from '../storage/store.js';
import { invalidObject, type KubeError } from '../../apimachinery/status.js';
import { SERVICES } from '../../apimachinery/resources.js';

const NODE_PORTS: [number, number] = [30000, 32767];

/** A 422 with the field cause kubectl prints (`The Service "x" is invalid: <field>: <message>`). */
export function fieldInvalid(kind: string, group: string, name: string, field: string, value: string, detail: string): KubeError {
  return invalidObject(kind, group, name, [{ reason: 'FieldValueInvalid', field, message: `Invalid value: ${value}: ${detail}` }]);
}

function refuse(name: string, field: string, value: string, detail: string): KubeError {
  return fieldInvalid('Service', '', name, field, value, detail);
}

/** The allocator's static band: min(max(16, size/16), 256) addresses at the bottom of the range. */
function staticBand(size: number): number {
  return Math.min(Math.max(16, Math.floor(size / 16)), 256);
}

function pickAddress(cidr: Cidr, used: Set<string>): string | undefined {
  const size = Number(cidr.size > 1n << 20n ? 1n << 20n : cidr.size);
  // Offsets 1 .. size-2: not the network nor the broadcast address.
  const usable = size - 2;
  if (usable <= 0) return undefined;
  const band = Math.min(staticBand(size), usable);
  const ranges: Array<[number, number]> =
    band < usable
      ? [
          [band + 1, size - 2],
          [1, band],
        ]
      : [[1, size - 2]];
  for (const [lo, hi] of ranges) {
    const span = hi - lo + 1;
    const start = randomInt(span);
    for (let i = 0; i < span; i++) {
      const ip = cidr.addressAt(BigInt(lo + ((start + i) % span))).toString();
      if (!used.has(ip)) return ip;
    }
  }
  return undefined;
}

export interface ServiceNetwork {
  serviceCidr: string;
}

/** Fills a written Service's defaults and addresses; throws KubeError (422) for addresses it cannot have. */
export function admitService(objects: ObjectStore, network: ServiceNetwork, svc: KubeObject, existing: KubeObject | undefined): void {
  const spec = ((svc as Service).spec ??= {});
  const old = (existing as Service | undefined)?.spec;
  const name = svc.metadata.name;
  spec.type ??= 'ClusterIP';
  spec.sessionAffinity ??= 'None';
  for (const p of spec.ports ?? []) {
    if (!p || typeof p !== 'object') continue;
    p.protocol ??= 'TCP';
    p.targetPort ??= p.port;
  }
  if (spec.type === 'ExternalName') return;
  spec.internalTrafficPolicy ??= 'Cluster';
  spec.ipFamilies ??= ['IPv4'];
  spec.ipFamilyPolicy ??= 'SingleStack';
  if (spec.type === 'NodePort' || spec.type === 'LoadBalancer') spec.externalTrafficPolicy ??= 'Cluster';
  (svc as Service).status ??= { loadBalancer: {} };

  const requested: string | undefined = spec.clusterIP || spec.clusterIPs?.[0] || undefined;
  if (old?.clusterIP) {
    if (requested !== undefined && requested !== old.clusterIP) {
      throw refuse(name, 'spec.clusterIPs[0]', JSON.stringify([requested]), 'may not change once set');
    }
    spec.clusterIP = old.clusterIP;
    spec.clusterIPs = old.clusterIPs ?? [old.clusterIP];
  } else if (requested === 'None') {
    spec.clusterIP = 'None';
    spec.clusterIPs = ['None'];
  } else {
    const cidr = Cidr.parse(network.serviceCidr);
    const used = new Set<string>();
    for (const s of objects.list(SERVICES) as Service[]) {
      if (s.metadata.namespace === svc.metadata.namespace && s.metadata.name === name) continue;
      for (const ip of s.spec?.clusterIPs ?? [s.spec?.clusterIP]) if (ip) used.add(ip);
    }
    let ip: string;
    if (requested !== undefined) {
      const addr = IpAddress.tryParse(requested);
      if (!addr) throw refuse(name, 'spec.clusterIPs[0]', JSON.stringify(requested), 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)');
      const offset = addr.family === cidr.family && cidr.contains(addr) ? cidr.offsetOf(addr) : -1n;
      if (offset <= 0n || offset >= cidr.size - 1n) {
        throw refuse(
          name,
          'spec.clusterIPs',
          JSON.stringify([requested]),
          `failed to allocate IP ${requested}: the provided IP (${requested}) is not in the valid range. The range of valid IPs is ${cidr.toString()}`,
        );
      }
      if (used.has(addr.toString()))
        throw refuse(name, 'spec.clusterIPs', JSON.stringify([requested]), `failed to allocate IP ${requested}: provided IP is already allocated`);
      ip = addr.toString();
    } else {
      const picked = pickAddress(cidr, used);
      if (!picked) throw refuse(name, 'spec.clusterIPs', '[]', `failed to allocate a serviceIP: range is full`);
      ip = picked;
    }
    spec.clusterIP = ip;
    spec.clusterIPs = [ip];
  }
  if (spec.type === 'NodePort' || spec.type === 'LoadBalancer') assignNodePorts(objects, svc, existing);
  if (spec.type === 'LoadBalancer' && spec.externalTrafficPolicy === 'Local') assignHealthCheckNodePort(objects, svc, existing);
  else delete spec.healthCheckNodePort;
}

/** Every node port the other Services hold: their ports' and their health checks'. */
function nodePortsInUse(objects: ObjectStore, svc: KubeObject): Set<number> {
  const used = new Set<number>();
  for (const s of objects.list(SERVICES) as Service[]) {
    if (s.metadata.namespace === svc.metadata.namespace && s.metadata.name === svc.metadata.name) continue;
    for (const p of s.spec?.ports ?? []) if (p.nodePort) used.add(Number(p.nodePort));
    if (s.spec?.healthCheckNodePort) used.add(Number(s.spec.healthCheckNodePort));
  }
  return used;
}

/** A free node port: `from` when it is free, else the next free one (a random start when none is given). */
function freeNodePort(used: Set<number>, from?: number): number {
  let port = from ?? NODE_PORTS[0] + randomInt(NODE_PORTS[1] - NODE_PORTS[0] + 1);
  while (used.has(port)) port = port >= NODE_PORTS[1] ? NODE_PORTS[0] : port + 1;
  return port;
}

/**
 * externalTrafficPolicy Local on a LoadBalancer Service: the apiserver allocates `healthCheckNodePort` from the
 * node-port range (kubernetes pkg/registry/core/service/storage: allocHealthCheckNodePort), kept across updates.
 */
function assignHealthCheckNodePort(objects: ObjectStore, svc: KubeObject, existing: KubeObject | undefined): void {
  const spec = (svc as Service).spec!;
  const used = nodePortsInUse(objects, svc);
  for (const p of spec.ports ?? []) if (p.nodePort) used.add(Number(p.nodePort));
  const kept = (existing as Service | undefined)?.spec?.healthCheckNodePort;
  const asked = spec.healthCheckNodePort;
  if (asked !== undefined && asked !== kept) {
    if (!Number.isInteger(asked) || asked < NODE_PORTS[0] || asked > NODE_PORTS[1])
      throw refuse(
        svc.metadata.name,
        'spec.healthCheckNodePort',
        String(asked),
        `provided port is not in the valid range. The range of valid ports is ${NODE_PORTS[0]}-${NODE_PORTS[1]}`,
      );
    if (used.has(asked)) throw refuse(svc.metadata.name, 'spec.healthCheckNodePort', String(asked), 'provided port is already allocated');
    return;
  }
  spec.healthCheckNodePort = freeNodePort(used, kept);
}

function assignNodePorts(objects: ObjectStore, svc: KubeObject, existing: KubeObject | undefined): void {
  const used = nodePortsInUse(objects, svc);
  const oldPorts: ServicePort[] = (existing as Service | undefined)?.spec?.ports ?? [];
  for (const [i, p] of ((svc as Service).spec!.ports ?? []).entries()) {
    if (p.nodePort) {
      if (used.has(Number(p.nodePort))) {
        throw refuse(svc.metadata.name, `spec.ports[${i}].nodePort`, String(p.nodePort), 'provided port is already allocated');
      }
      if (p.nodePort < NODE_PORTS[0] || p.nodePort > NODE_PORTS[1]) {
        throw refuse(
          svc.metadata.name,
          `spec.ports[${i}].nodePort`,
          String(p.nodePort),
          `provided port is not in the valid range. The range of valid ports is ${NODE_PORTS[0]}-${NODE_PORTS[1]}`,
        );
      }
      used.add(Number(p.nodePort));
      continue;
    }
    const kept = oldPorts.find((o) => o.port === p.port && o.protocol === p.protocol)?.nodePort;
    const port = freeNodePort(used, kept);
    p.nodePort = port;
    used.add(port);
  }
}
