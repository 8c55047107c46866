// Services of type LoadBalancer as cloud-provider-azure serves them (docs/aks-rules.md §12), with the real kubectl
// against a cluster created through ARM, the load balancers read with `aksemu az network lb show` and the Azure
// SDK: the managed `kubernetes` load balancer with its outbound rule; a public Service's own public IP, frontend,
// rules and probes, its EXTERNAL-IP and the controller's events; an internal Service on `kubernetes-internal` with a
// node-subnet address; a static IP that does not exist (SyncLoadBalancerFailed); externalTrafficPolicy Local with
// its health-check probe; deletion giving everything back; and the state across a restart.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { defaultLoadBalancerName } from '../../src/cluster/cloud/load-balancer-names.js';
import { outboundIpName } from '../../src/aks/naming.js';
import { az } from '../az/helpers.js';
import { restart } from '../network/harness.js';
import { eventually, HAVE_KUBECTL, kubectl, withCluster, type ClusterEnv } from './harness.js';

const skip = HAVE_KUBECTL ? false : 'no /usr/bin/kubectl on this machine';

const ok = async (env: ClusterEnv, args: string[]) => {
  const r = await kubectl(env, args);
  assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
};

const apply = (env: ClusterEnv, name: string, obj: unknown) => {
  const file = join(env.scratch, `${name}.json`);
  writeFileSync(file, JSON.stringify(obj));
  return ok(env, ['apply', '-f', file]);
};

const lbService = (name: string, extra: { annotations?: Record<string, string>; spec?: Record<string, unknown> } = {}) => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name, namespace: 'default', ...(extra.annotations ? { annotations: extra.annotations } : {}) },
  spec: { type: 'LoadBalancer', selector: { app: name }, ports: [{ name: 'http', port: 80, targetPort: 8080 }], ...(extra.spec ?? {}) },
});

async function externalIp(env: ClusterEnv, name: string): Promise<string> {
  let ip = '';
  await eventually(
    async () => {
      const svc = JSON.parse(await ok(env, ['get', 'svc', name, '-o', 'json']));
      ip = svc.status?.loadBalancer?.ingress?.[0]?.ip ?? '';
      return ip !== '';
    },
    15_000,
    `${name} gets an ingress IP`,
  );
  return ip;
}

async function events(env: ClusterEnv, name: string): Promise<Array<{ type: string; reason: string; message: string; source: { component: string } }>> {
  const list = JSON.parse(await ok(env, ['get', 'events', '--field-selector', `involvedObject.name=${name}`, '-o', 'json']));
  return list.items;
}

describe('Services of type LoadBalancer (cloud-provider-azure)', { skip }, () => {
  test('the kubernetes load balancer, a public and an internal Service, a missing static IP, eTP Local, deletion and a restart', () =>
    withCluster({ networkPlugin: 'kubenet' }, async (env) => {
      const mc = `/subscriptions/${env.sub}/resourceGroups/MC_rg_c1_eastus`;
      const lbs = `${mc}/providers/Microsoft.Network/loadBalancers`;
      const outbound = outboundIpName(mc);

      // The managed load balancer, as AKS creates it for outboundType loadBalancer.
      const shown = await az(env.home, ['network', 'lb', 'show', '-g', 'MC_rg_c1_eastus', '-n', 'kubernetes']);
      assert.equal(shown.code, 0, shown.stderr);
      const lb0 = JSON.parse(shown.stdout);
      assert.equal(lb0.sku.name, 'Standard');
      assert.deepEqual(
        lb0.frontendIPConfigurations.map((f: any) => [f.name, f.publicIPAddress.id]),
        [[outbound, `${mc}/providers/Microsoft.Network/publicIPAddresses/${outbound}`]],
      );
      assert.deepEqual(lb0.backendAddressPools.map((p: any) => p.name).sort(), ['aksOutboundBackendPool', 'kubernetes']);
      assert.deepEqual(
        lb0.outboundRules.map((r: any) => [r.name, r.protocol, r.idleTimeoutInMinutes, r.backendAddressPool.id]),
        [['aksOutboundRule', 'All', 30, `${lbs}/kubernetes/backendAddressPools/aksOutboundBackendPool`]],
      );
      const cluster = JSON.parse((await az(env.home, ['aks', 'show', '-g', 'rg', '-n', 'c1'])).stdout);
      assert.equal(cluster.networkProfile.loadBalancerProfile.effectiveOutboundIPs[0].id, lb0.frontendIPConfigurations[0].publicIPAddress.id);

      // A public Service made with kubectl expose.
      await ok(env, ['create', 'deployment', 'web', '--image=registry.k8s.io/e2e-test-images/agnhost:2.52', '--', '/agnhost', 'netexec', '--http-port=8080']);
      await ok(env, ['expose', 'deployment', 'web', '--type=LoadBalancer', '--port=80', '--target-port=8080']);
      const ip = await externalIp(env, 'web');
      assert.match(ip, /^198\.19\.\d+\.\d+$/);
      const svc = JSON.parse(await ok(env, ['get', 'svc', 'web', '-o', 'json']));
      assert.deepEqual(svc.metadata.finalizers, ['service.kubernetes.io/load-balancer-cleanup']);
      const nodePort = svc.spec.ports[0].nodePort;
      const table = (await ok(env, ['get', 'svc', 'web'])).trim().split('\n');
      assert.match(table[1]!, new RegExp(`^web\\s+LoadBalancer\\s+10\\.0\\.\\d+\\.\\d+\\s+${ip.replaceAll('.', '\\.')}\\s+80:${nodePort}/TCP\\s+`));
      const prefix = defaultLoadBalancerName(svc.metadata.uid);
      assert.equal(prefix.length, 32);

      const lb = await env.network.loadBalancers.get('MC_rg_c1_eastus', 'kubernetes');
      const fe = lb.frontendIPConfigurations!.find((f) => f.name === prefix)!;
      assert.equal(fe.publicIPAddress!.id, `${mc}/providers/Microsoft.Network/publicIPAddresses/kubernetes-${prefix}`);
      const pip = await env.network.publicIPAddresses.get('MC_rg_c1_eastus', `kubernetes-${prefix}`);
      assert.equal(pip.ipAddress, ip);
      assert.deepEqual(pip.tags, { 'k8s-azure-service': 'default/web', 'k8s-azure-cluster-name': 'kubernetes' });
      const rule = lb.loadBalancingRules!.find((r) => r.name === `${prefix}-TCP-80`)!;
      assert.deepEqual(
        [rule.protocol, rule.frontendPort, rule.backendPort, rule.enableFloatingIP, rule.enableTcpReset, rule.idleTimeoutInMinutes, rule.disableOutboundSnat],
        ['Tcp', 80, 80, true, true, 4, true],
      );
      assert.equal(rule.backendAddressPool!.id, `${lbs}/kubernetes/backendAddressPools/kubernetes`);
      assert.equal(rule.probe!.id, `${lbs}/kubernetes/probes/${prefix}-TCP-80`);
      const probe = lb.probes!.find((p) => p.name === `${prefix}-TCP-80`)!;
      assert.deepEqual([probe.protocol, probe.port, probe.intervalInSeconds], ['Tcp', nodePort, 5]);

      const described = await ok(env, ['describe', 'svc', 'web']);
      assert.match(described, new RegExp(`LoadBalancer Ingress:\\s+${ip.replaceAll('.', '\\.')}`));
      assert.match(described, /Normal\s+EnsuringLoadBalancer\s+\S+\s+service-controller\s+Ensuring load balancer/);
      assert.match(described, /Normal\s+EnsuredLoadBalancer\s+\S+\s+service-controller\s+Ensured load balancer/);

      // An internal Service: kubernetes-internal, an address of the node subnet.
      await apply(env, 'internal', lbService('inner', { annotations: { 'service.beta.kubernetes.io/azure-load-balancer-internal': 'true' } }));
      const innerIp = await externalIp(env, 'inner');
      assert.match(innerIp, /^10\.224\.\d+\.\d+$/);
      const ilb = await env.network.loadBalancers.get('MC_rg_c1_eastus', 'kubernetes-internal');
      assert.equal(ilb.frontendIPConfigurations!.length, 1);
      assert.equal(ilb.frontendIPConfigurations![0]!.privateIPAddress, innerIp);
      assert.match(ilb.frontendIPConfigurations![0]!.subnet!.id!, /\/virtualNetworks\/aks-vnet-\d{8}\/subnets\/aks-subnet$/);

      // A static IP that is not a public IP of the node resource group: the controller's error, again and again.
      await apply(env, 'static', lbService('fixed', { annotations: { 'service.beta.kubernetes.io/azure-load-balancer-ipv4': '198.19.200.200' } }));
      await eventually(async () => (await events(env, 'fixed')).some((e) => e.reason === 'SyncLoadBalancerFailed'), 15_000, 'SyncLoadBalancerFailed');
      const failed = (await events(env, 'fixed')).find((e) => e.reason === 'SyncLoadBalancerFailed')!;
      assert.equal(failed.type, 'Warning');
      assert.equal(
        failed.message,
        'Error syncing load balancer: failed to ensure load balancer: findMatchedPIPByLoadBalancerIP: cannot find public IP with IP address 198.19.200.200 in resource group MC_rg_c1_eastus: getExpectedPIPFromListByIPAddress: cannot find public IP with IP address 198.19.200.200',
      );
      assert.match((await ok(env, ['get', 'svc', 'fixed'])).split('\n')[1]!, /<pending>/);
      // A private address for a public Service.
      await apply(env, 'private', lbService('privy', { spec: { loadBalancerIP: '10.1.2.3' } }));
      await eventually(async () => (await events(env, 'privy')).some((e) => e.reason === 'SyncLoadBalancerFailed'), 15_000, 'SyncLoadBalancerFailed');
      assert.match(
        (await events(env, 'privy')).find((e) => e.reason === 'SyncLoadBalancerFailed')!.message,
        /external Service "default\/privy" cannot use non-public LoadBalancer IP "10\.1\.2\.3"; use an internal LoadBalancer annotation/,
      );
      // The IP created first, then named: the Service takes it, and deleting the Service leaves it.
      const made = await az(env.home, ['network', 'public-ip', 'create', '-g', 'MC_rg_c1_eastus', '-n', 'mine', '--sku', 'Standard']);
      assert.equal(made.code, 0, made.stderr);
      const mineIp = JSON.parse(made.stdout).publicIp.ipAddress;
      await apply(env, 'named', lbService('named', { annotations: { 'service.beta.kubernetes.io/azure-pip-name': 'mine' } }));
      assert.equal(await externalIp(env, 'named'), mineIp);
      await apply(env, 'nopip', lbService('nopip', { annotations: { 'service.beta.kubernetes.io/azure-pip-name': 'nosuch' } }));
      await eventually(async () => (await events(env, 'nopip')).some((e) => e.reason === 'SyncLoadBalancerFailed'), 15_000, 'SyncLoadBalancerFailed');
      assert.equal(
        (await events(env, 'nopip')).find((e) => e.reason === 'SyncLoadBalancerFailed')!.message,
        "Error syncing load balancer: failed to ensure load balancer: PublicIP from annotation azure-pip-name(-IPv6)=nosuch for service default/nopip doesn't exist",
      );

      // An address that is not one; an internal subnet that does not exist.
      await apply(env, 'badip', lbService('badip', { annotations: { 'service.beta.kubernetes.io/azure-load-balancer-ipv4': 'not-an-ip' } }));
      await apply(
        env,
        'nosubnet',
        lbService('nosubnet', {
          annotations: {
            'service.beta.kubernetes.io/azure-load-balancer-internal': 'true',
            'service.beta.kubernetes.io/azure-load-balancer-internal-subnet': 'nosuch',
          },
        }),
      );
      const failure = async (name: string) => {
        await eventually(async () => (await events(env, name)).some((e) => e.reason === 'SyncLoadBalancerFailed'), 15_000, `${name} fails`);
        return (await events(env, name)).find((e) => e.reason === 'SyncLoadBalancerFailed')!.message;
      };
      assert.equal(
        await failure('badip'),
        'Error syncing load balancer: failed to ensure load balancer: external Service "default/badip" has invalid LoadBalancer IP "not-an-ip"',
      );
      assert.match(
        await failure('nosubnet'),
        /^Error syncing load balancer: failed to ensure load balancer: ensure\(default\/nosubnet\): lb\(kubernetes-internal\) - failed to get subnet: aks-vnet-\d{8}\/nosuch$/,
      );
      // Hostile annotations never name another record: a group name with slashes, a subnet name with a path.
      await apply(
        env,
        'hostile',
        lbService('hostile', { annotations: { 'service.beta.kubernetes.io/azure-load-balancer-resource-group': 'rg/providers/Microsoft.Network/x' } }),
      );
      assert.match(
        await failure('hostile'),
        /failed to ensure load balancer: RESPONSE 400: ERROR CODE: InvalidResourceGroup: The provided resource group name 'rg\/providers\/Microsoft\.Network\/x' has these invalid characters: '\/\/\/'/,
      );
      await apply(
        env,
        'hostile2',
        lbService('hostile2', {
          annotations: {
            'service.beta.kubernetes.io/azure-load-balancer-internal': 'true',
            'service.beta.kubernetes.io/azure-load-balancer-internal-subnet': 'aks-subnet/ipConfigurations/x',
          },
        }),
      );
      assert.match(await failure('hostile2'), /failed to get subnet: aks-vnet-\d{8}\/aks-subnet\/ipConfigurations\/x$/);
      // A static public IP in another resource group (the resource-group annotation), found by its address.
      assert.equal((await az(env.home, ['group', 'create', '-l', 'eastus', '-n', 'ips', '-o', 'none'])).code, 0);
      const other = await az(env.home, ['network', 'public-ip', 'create', '-g', 'ips', '-n', 'static1', '--sku', 'Standard']);
      assert.equal(other.code, 0, other.stderr);
      const staticIp = JSON.parse(other.stdout).publicIp.ipAddress;
      await apply(
        env,
        'static2',
        lbService('pinned', { annotations: { 'service.beta.kubernetes.io/azure-load-balancer-resource-group': 'ips' }, spec: { loadBalancerIP: staticIp } }),
      );
      assert.equal(await externalIp(env, 'pinned'), staticIp);
      const pinnedPip = await env.network.publicIPAddresses.get('ips', 'static1');
      assert.match(pinnedPip.ipConfiguration!.id!, /\/loadBalancers\/kubernetes\/frontendIPConfigurations\/a[0-9a-f]{31}$/);

      // externalTrafficPolicy Local: a healthCheckNodePort and one HTTP probe on it for every rule.
      await apply(env, 'local', lbService('local', { spec: { externalTrafficPolicy: 'Local' } }));
      await externalIp(env, 'local');
      const local = JSON.parse(await ok(env, ['get', 'svc', 'local', '-o', 'json']));
      const health = local.spec.healthCheckNodePort;
      assert.ok(health >= 30000 && health <= 32767, String(health));
      const localPrefix = defaultLoadBalancerName(local.metadata.uid);
      const lb2 = await env.network.loadBalancers.get('MC_rg_c1_eastus', 'kubernetes');
      const localProbe = lb2.probes!.find((p) => p.name === `${localPrefix}-TCP-${health}`)!;
      assert.deepEqual([localProbe.protocol, localProbe.port, localProbe.requestPath], ['Http', health, '/healthz']);
      assert.equal(lb2.loadBalancingRules!.find((r) => r.name === `${localPrefix}-TCP-80`)!.probe!.id, localProbe.id);

      // The state survives a restart: the same addresses, nothing ensured twice into a second frontend.
      await restart(env);
      assert.equal(await externalIp(env, 'web'), ip);
      assert.equal(await externalIp(env, 'inner'), innerIp);
      const after = await env.network.loadBalancers.get('MC_rg_c1_eastus', 'kubernetes');
      assert.equal(after.frontendIPConfigurations!.filter((f) => f.name === prefix).length, 1);

      // Deletion: the frontend, rules, probes and the public IP go; the Service is gone after its finalizer.
      await ok(env, ['delete', 'svc', 'web', 'inner', '--wait=true', '--timeout=30s']);
      const gone = await env.network.loadBalancers.get('MC_rg_c1_eastus', 'kubernetes');
      assert.equal(
        gone.frontendIPConfigurations!.some((f) => f.name === prefix),
        false,
      );
      assert.equal(
        gone.loadBalancingRules!.some((r) => r.name!.startsWith(prefix)),
        false,
      );
      assert.equal(
        gone.probes!.some((r) => r.name!.startsWith(prefix)),
        false,
      );
      const pips = await az(env.home, ['network', 'public-ip', 'list', '-g', 'MC_rg_c1_eastus', '--query', '[].name', '-o', 'tsv']);
      assert.equal(pips.stdout.includes(`kubernetes-${prefix}`), false, pips.stdout);
      const ilbGone = await az(env.home, ['network', 'lb', 'show', '-g', 'MC_rg_c1_eastus', '-n', 'kubernetes-internal']);
      assert.notEqual(ilbGone.code, 0, 'the internal load balancer without frontends is deleted');
      const deleting = await events(env, 'web');
      // Events outlive the Service (their TTL is an hour): the deletion's are there.
      assert.ok(deleting.some((e) => e.reason === 'DeletingLoadBalancer' && e.message === 'Deleting load balancer'));
      assert.ok(deleting.some((e) => e.reason === 'DeletedLoadBalancer' && e.message === 'Deleted load balancer'));
      // A named IP is the user's: it stays, free again.
      await ok(env, ['delete', 'svc', 'named', '--timeout=30s']);
      const kept = await env.network.publicIPAddresses.get('MC_rg_c1_eastus', 'mine');
      assert.equal(kept.ipConfiguration, undefined);
    }));
});
