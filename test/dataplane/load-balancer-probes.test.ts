// The load balancer's health probes as the netns data plane answers them from kube-proxy's table on a node
// (docs/dataplane.md §16): a TCP probe of a node port, kube-proxy's health server on a healthCheckNodePort.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { probeAnswers } from '../../src/dataplane/netns/load-balancer.js';
import type { NodeServices, ServicePortEntry } from '../../src/dataplane/services.js';

const port = (extra: Partial<ServicePortEntry>): ServicePortEntry => ({
  namespace: 'default',
  name: 'web',
  portName: '',
  protocol: 'TCP',
  clusterIp: '10.0.0.20',
  port: 80,
  nodePort: 31000,
  externalLocal: false,
  internalLocal: false,
  clusterEndpoints: [{ ip: '10.244.1.5', port: 8080 }],
  localEndpoints: [],
  hasEndpoints: true,
  ...extra,
});
const table = (...ports: ServicePortEntry[]): NodeServices => ({ clusterId: 'c', serviceCidrs: ['10.0.0.0/16'], ports });

test('a TCP probe of a node port: answered where kube-proxy has endpoints for it (eTP Local: on this node)', () => {
  const tcp = { protocol: 'Tcp' as const, port: 31000 };
  assert.equal(probeAnswers(table(port({})), tcp), true);
  assert.equal(probeAnswers(table(port({ clusterEndpoints: [], hasEndpoints: false })), tcp), false, 'no endpoints: kube-proxy rejects');
  assert.equal(probeAnswers(table(port({ externalLocal: true })), tcp), false, 'eTP Local without a local endpoint: dropped');
  assert.equal(probeAnswers(table(port({})), { protocol: 'Tcp', port: 31001 }), false, 'nothing on another port');
  assert.equal(probeAnswers(undefined, tcp), false, 'a node kube-proxy has not programmed answers nothing');
  assert.equal(probeAnswers(undefined, undefined), true, 'a rule without a probe: every node');
});

test("an HTTP probe of the healthCheckNodePort: kube-proxy's health server, 200 only with a local endpoint", () => {
  const http = { protocol: 'Http' as const, port: 32100, requestPath: '/healthz' };
  const local = port({ externalLocal: true, healthCheckNodePort: 32100 });
  assert.equal(probeAnswers(table(local), http), false);
  assert.equal(probeAnswers(table({ ...local, localEndpoints: [{ ip: '10.244.0.5', port: 8080 }] }), http), true);
});
