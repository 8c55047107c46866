// A node's Services for the kube-proxy tests: one of each behaviour the rules render (docs/dataplane.md §12).
import type { NodeServices, ServicePortEntry } from '../../src/dataplane/services.js';

const port = (p: Partial<ServicePortEntry> & Pick<ServicePortEntry, 'name' | 'clusterIp'>): ServicePortEntry => ({
  namespace: 'default',
  portName: '',
  protocol: 'TCP',
  port: 80,
  externalLocal: false,
  internalLocal: false,
  clusterEndpoints: [],
  localEndpoints: [],
  hasEndpoints: false,
  ...p,
});

export function sampleServices(): NodeServices {
  return {
    clusterId: 'c',
    clusterCidr: '10.244.0.0/16',
    serviceCidrs: ['10.0.0.0/16'],
    ports: [
      port({
        name: 'web',
        portName: 'http',
        clusterIp: '10.0.0.20',
        nodePort: 30080,
        affinitySeconds: 10800,
        clusterEndpoints: [
          { ip: '10.244.0.2', port: 8080 },
          { ip: '10.244.1.2', port: 8080 },
        ],
        hasEndpoints: true,
      }),
      port({
        name: 'dns',
        protocol: 'UDP',
        clusterIp: '10.0.0.21',
        port: 53,
        nodePort: 30053,
        externalLocal: true,
        clusterEndpoints: [
          { ip: '10.244.0.2', port: 53 },
          { ip: '10.244.1.2', port: 53 },
        ],
        localEndpoints: [{ ip: '10.244.0.2', port: 53 }],
        hasEndpoints: true,
      }),
      port({ name: 'empty', clusterIp: '10.0.0.22', nodePort: 30081 }),
      port({ name: 'nodelocal', clusterIp: '10.0.0.23', internalLocal: true, hasEndpoints: true }),
    ],
  };
}
