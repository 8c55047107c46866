// The load-balancing rules and health probes cloud-provider-azure expects for a Service (getExpectedLBRules,
// getExpectedLoadBalancingRulePropertiesForPort and buildHealthProbeRulesForPort in
// kubernetes-sigs/cloud-provider-azure pkg/provider/azure_loadbalancer.go and azure_loadbalancer_healthprobe.go),
// as plain data for a load balancer PUT (docs/aks-rules.md §12.2). Only the default health-probe mode is built
// (`servicenodeport`: a probe per port on its node port, or one HTTP probe on the health-check node port for
// externalTrafficPolicy Local); the per-port probe annotations are not read.
import type { Service } from '../apimachinery/types.js';
import { ANNOTATIONS, isInternal, ruleName } from './load-balancer-names.js';

interface ExpectedRule {
  name: string;
  properties: {
    frontendIPConfiguration: { id: string };
    backendAddressPool: { id: string };
    probe?: { id: string };
    protocol: 'Tcp' | 'Udp' | 'All';
    frontendPort: number;
    backendPort: number;
    enableFloatingIP: boolean;
    enableTcpReset?: boolean;
    idleTimeoutInMinutes: number;
    loadDistribution: 'Default' | 'SourceIP';
    disableOutboundSnat: boolean;
  };
}

interface ExpectedProbe {
  name: string;
  properties: { protocol: 'Tcp' | 'Http'; port: number; requestPath?: string; intervalInSeconds: number; probeThreshold: number };
}

/** consts.HealthProbeDefaultProbeInterval and HealthProbeDefaultNumOfProbe. */
const PROBE_INTERVAL = 5;
const PROBE_THRESHOLD = 2;
/** The idle timeout without the idle-timeout annotation. */
const IDLE_MINUTES = 4;

interface RuleTarget {
  lbId: string;
  frontendId: string;
  poolId: string;
  /** The internal subnet annotation's value, which rule names carry. */
  internalSubnet?: string;
}

/** Why a Service's ports cannot be put on the load balancer, in cloud-provider-azure's words, or undefined. */
export function portsProblem(svc: Service): string | undefined {
  for (const p of svc.spec?.ports ?? [])
    if (p.protocol === 'SCTP' && !isInternal(svc.metadata.annotations)) return 'SCTP is only supported on standard loadbalancer in internal mode';
  return undefined;
}

const TRANSPORT: Record<string, ExpectedRule['properties']['protocol']> = { TCP: 'Tcp', UDP: 'Udp', SCTP: 'All' };

/** The rules and probes of one Service on one frontend. */
export function expectedRules(svc: Service, target: RuleTarget): { rules: ExpectedRule[]; probes: ExpectedProbe[] } {
  const uid = String(svc.metadata.uid);
  const spec = svc.spec ?? {};
  const probeId = (name: string) => `${target.lbId}/probes/${name}`;
  const floatingOff = svc.metadata.annotations?.[ANNOTATIONS.disableFloatingIp] === 'true';
  const probes: ExpectedProbe[] = [];
  // externalTrafficPolicy Local: one HTTP probe of kube-proxy's health server on the health-check node port,
  // answering 200 only on nodes with a local endpoint (servicehelpers.GetServiceHealthCheckPathPort: /healthz).
  const local = spec.externalTrafficPolicy === 'Local' && spec.healthCheckNodePort ? spec.healthCheckNodePort : undefined;
  let localProbe: ExpectedProbe | undefined;
  if (local !== undefined) {
    localProbe = {
      name: ruleName(uid, 'TCP', local, target.internalSubnet),
      properties: { protocol: 'Http', port: local, requestPath: '/healthz', intervalInSeconds: PROBE_INTERVAL, probeThreshold: PROBE_THRESHOLD },
    };
  }
  const rules: ExpectedRule[] = [];
  for (const p of spec.ports ?? []) {
    const protocol = p.protocol ?? 'TCP';
    const transport = TRANSPORT[protocol];
    if (!transport || typeof p.port !== 'number') continue;
    const name = ruleName(uid, protocol, p.port, target.internalSubnet);
    let probe: ExpectedProbe | undefined;
    if (localProbe) probe = localProbe;
    else if (protocol === 'TCP' && typeof p.nodePort === 'number')
      // UDP and SCTP ports get no probe of their own; a TCP port's probe is a TCP connect to its node port.
      probe = { name, properties: { protocol: 'Tcp', port: p.nodePort, intervalInSeconds: PROBE_INTERVAL, probeThreshold: PROBE_THRESHOLD } };
    if (probe && !probes.some((x) => x.name === probe.name)) probes.push(probe);
    rules.push({
      name,
      properties: {
        frontendIPConfiguration: { id: target.frontendId },
        backendAddressPool: { id: target.poolId },
        ...(probe ? { probe: { id: probeId(probe.name) } } : {}),
        protocol: transport,
        frontendPort: p.port,
        // Floating IP (direct server return) is on unless the annotation turns it off: the packet reaches the node
        // with the frontend's address and port, and kube-proxy's rules for the ingress IP take it from there.
        backendPort: floatingOff && typeof p.nodePort === 'number' ? p.nodePort : p.port,
        enableFloatingIP: !floatingOff,
        ...(transport === 'Tcp' ? { enableTcpReset: true } : {}),
        idleTimeoutInMinutes: IDLE_MINUTES,
        loadDistribution: spec.sessionAffinity === 'ClientIP' ? 'SourceIP' : 'Default',
        // AKS configures cloud-provider-azure with disableOutboundSNAT: outbound traffic goes by aksOutboundRule.
        disableOutboundSnat: true,
      },
    });
  }
  return { rules, probes };
}
