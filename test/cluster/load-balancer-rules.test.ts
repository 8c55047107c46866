// cloud-provider-azure's names and the rules and probes it expects for a Service (docs/aks-rules.md §12.1, §12.2):
// the values its source gives for the same inputs (DefaultLoadBalancerName, getPublicIPName, getLoadBalancerRuleName,
// getExpectedLBRules, buildHealthProbeRulesForPort).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defaultLoadBalancerName, frontendName, isInternal, loadBalancerName, publicIpName, ruleName } from '../../src/cluster/cloud/load-balancer-names.js';
import { expectedRules, portsProblem } from '../../src/cluster/cloud/load-balancer-rules.js';
import { requestedAddress } from '../../src/cluster/cloud/azure-load-balancers.js';
import type { Service } from '../../src/cluster/apimachinery/types.js';

const UID = '6f1c2b7e-3a4d-4e5f-9a0b-1c2d3e4f5a6b';

const svc = (spec: Record<string, unknown>, annotations?: Record<string, string>): Service =>
  ({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'web', namespace: 'default', uid: UID, ...(annotations ? { annotations } : {}) },
    spec: { type: 'LoadBalancer', ports: [{ name: 'http', port: 80, nodePort: 31000, protocol: 'TCP' }], ...spec },
  }) as Service;

const target = { lbId: '/lb/kubernetes', frontendId: '/lb/kubernetes/frontendIPConfigurations/f', poolId: '/lb/kubernetes/backendAddressPools/kubernetes' };

test('names: "a" and the uid without dashes, cut to 32; the public IP kubernetes-<that>; rules <prefix>-<PROTOCOL>-<port>', () => {
  assert.equal(defaultLoadBalancerName(UID), 'a6f1c2b7e3a4d4e5f9a0b1c2d3e4f5a6');
  assert.equal(defaultLoadBalancerName(UID).length, 32);
  assert.equal(publicIpName(UID), 'kubernetes-a6f1c2b7e3a4d4e5f9a0b1c2d3e4f5a6');
  assert.equal(frontendName(UID), 'a6f1c2b7e3a4d4e5f9a0b1c2d3e4f5a6');
  assert.equal(ruleName(UID, 'TCP', 80), 'a6f1c2b7e3a4d4e5f9a0b1c2d3e4f5a6-TCP-80');
  assert.equal(ruleName(UID, 'UDP', 53), 'a6f1c2b7e3a4d4e5f9a0b1c2d3e4f5a6-UDP-53');
  // An internal subnet annotation adds the subnet to the frontend and the rules.
  assert.equal(frontendName(UID, 'ilb'), 'a6f1c2b7e3a4d4e5f9a0b1c2d3e4f5a6-ilb');
  assert.equal(ruleName(UID, 'TCP', 80, 'ilb'), 'a6f1c2b7e3a4d4e5f9a0b1c2d3e4f5a6-ilb-TCP-80');
  // Rule names stay within 80 - 5 characters: a long subnet name is cut.
  const long = ruleName(UID, 'TCP', 8080, 'x'.repeat(100));
  assert.equal(long.length, 75);
  assert.ok(long.endsWith('-TCP-8080'));
  assert.equal(loadBalancerName(false), 'kubernetes');
  assert.equal(loadBalancerName(true), 'kubernetes-internal');
  assert.equal(isInternal({ 'service.beta.kubernetes.io/azure-load-balancer-internal': 'true' }), true);
  assert.equal(isInternal({ 'service.beta.kubernetes.io/azure-load-balancer-internal': 'True' }), false);
});

test('rules: one per port, floating IP on, backend port = port, TCP reset, idle 4, a TCP probe on the node port', () => {
  const { rules, probes } = expectedRules(svc({}), target);
  assert.deepEqual(rules, [
    {
      name: 'a6f1c2b7e3a4d4e5f9a0b1c2d3e4f5a6-TCP-80',
      properties: {
        frontendIPConfiguration: { id: target.frontendId },
        backendAddressPool: { id: target.poolId },
        probe: { id: '/lb/kubernetes/probes/a6f1c2b7e3a4d4e5f9a0b1c2d3e4f5a6-TCP-80' },
        protocol: 'Tcp',
        frontendPort: 80,
        backendPort: 80,
        enableFloatingIP: true,
        enableTcpReset: true,
        idleTimeoutInMinutes: 4,
        loadDistribution: 'Default',
        disableOutboundSnat: true,
      },
    },
  ]);
  assert.deepEqual(probes, [
    { name: 'a6f1c2b7e3a4d4e5f9a0b1c2d3e4f5a6-TCP-80', properties: { protocol: 'Tcp', port: 31000, intervalInSeconds: 5, probeThreshold: 2 } },
  ]);
});

test('rules: UDP has no probe and no TCP reset; ClientIP affinity is SourceIP; floating IP off sends to the node port', () => {
  const udp = expectedRules(svc({ ports: [{ port: 53, nodePort: 30053, protocol: 'UDP' }], sessionAffinity: 'ClientIP' }), target);
  assert.equal(udp.probes.length, 0);
  assert.equal(udp.rules[0]!.properties.probe, undefined);
  assert.equal(udp.rules[0]!.properties.enableTcpReset, undefined);
  assert.equal(udp.rules[0]!.properties.protocol, 'Udp');
  assert.equal(udp.rules[0]!.properties.loadDistribution, 'SourceIP');
  const off = expectedRules(svc({}, { 'service.beta.kubernetes.io/azure-disable-load-balancer-floating-ip': 'true' }), target);
  assert.deepEqual([off.rules[0]!.properties.enableFloatingIP, off.rules[0]!.properties.backendPort], [false, 31000]);
});

test('externalTrafficPolicy Local: one HTTP probe /healthz on the health-check node port, named as a TCP rule on it, for every rule', () => {
  const local = svc({
    externalTrafficPolicy: 'Local',
    healthCheckNodePort: 32100,
    ports: [
      { name: 'http', port: 80, nodePort: 31000, protocol: 'TCP' },
      { name: 'https', port: 443, nodePort: 31443, protocol: 'TCP' },
    ],
  });
  const { rules, probes } = expectedRules(local, target);
  assert.deepEqual(probes, [
    {
      name: 'a6f1c2b7e3a4d4e5f9a0b1c2d3e4f5a6-TCP-32100',
      properties: { protocol: 'Http', port: 32100, requestPath: '/healthz', intervalInSeconds: 5, probeThreshold: 2 },
    },
  ]);
  assert.deepEqual(
    rules.map((r) => [r.name, r.properties.probe?.id]),
    [
      ['a6f1c2b7e3a4d4e5f9a0b1c2d3e4f5a6-TCP-80', '/lb/kubernetes/probes/a6f1c2b7e3a4d4e5f9a0b1c2d3e4f5a6-TCP-32100'],
      ['a6f1c2b7e3a4d4e5f9a0b1c2d3e4f5a6-TCP-443', '/lb/kubernetes/probes/a6f1c2b7e3a4d4e5f9a0b1c2d3e4f5a6-TCP-32100'],
    ],
  );
});

test('SCTP only on an internal load balancer; the requested address: the ipv4 annotation first, then an IPv4 spec.loadBalancerIP', () => {
  const sctp = svc({ ports: [{ port: 9, nodePort: 30009, protocol: 'SCTP' }] });
  assert.equal(portsProblem(sctp), 'SCTP is only supported on standard loadbalancer in internal mode');
  assert.equal(
    portsProblem({ ...sctp, metadata: { ...sctp.metadata, annotations: { 'service.beta.kubernetes.io/azure-load-balancer-internal': 'true' } } }),
    undefined,
  );
  assert.equal(requestedAddress(svc({ loadBalancerIP: '198.19.0.9' })), '198.19.0.9');
  assert.equal(requestedAddress(svc({ loadBalancerIP: '198.19.0.9' }, { 'service.beta.kubernetes.io/azure-load-balancer-ipv4': '198.19.0.7' })), '198.19.0.7');
  // spec.loadBalancerIP is read only when it is an IPv4 address (getServiceLoadBalancerIP); the annotation as given.
  assert.equal(requestedAddress(svc({ loadBalancerIP: 'not-an-ip' })), undefined);
  assert.equal(requestedAddress(svc({}, { 'service.beta.kubernetes.io/azure-load-balancer-ipv4': 'not-an-ip' })), 'not-an-ip');
});
