// The cluster DNS on the real data plane (issue 17 item 2, docs/dataplane.md §14): a 2-node kubenet cluster with
// `--dataplane netns`, its coredns pods Running and Ready with their DNS server in their own namespaces, and the
// real `dig` and `nslookup` run as nobody in a workload pod's namespace (spawnInNetns) asking a coredns pod's IP
// directly (the kube-dns ClusterIP path is kube-proxy's, tested end to end elsewhere): A and SRV for a Service,
// a headless Service and its pod by hostname, NXDOMAIN inside cluster.local, names outside forwarded to the VNet's Azure DNS (a node's internal name, NXDOMAIN
// for the rest), TCP as UDP. The
// kubelet's resolv.conf and hosts for the pod are at the exported paths and go with the pod. Root only; the
// host's network is unchanged after, no namespace left.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { podHostsPath, podResolvConfPath } from '../../src/cluster/nodefs/node-root.js';
import { nodeRootDir } from '../../src/cluster/nodefs/paths.js';
import { run } from '../../src/dataplane/netns/exec.js';
import { netnsArgv } from '../../src/dataplane/netns/spawn.js';
import { DataplaneWorld, eventually, RG, skipReason } from './dataplane-harness.js';

type Obj = any;
const CLUSTER = 'd1';
const HAVE_DIG = existsSync('/usr/bin/dig') && existsSync('/usr/bin/nslookup');

describe('cluster DNS in the coredns pods (netns data plane)', { skip: skipReason() || (!HAVE_DIG && 'no dig/nslookup (bind9-dnsutils)') }, () => {
  let world: DataplaneWorld;
  let clientNetns = '';
  let dnsIp = '';
  let webIp = '';
  let db0: Obj;

  /** A tool run as nobody in the client pod's namespace (spawnInNetns's argv), bounded in time. */
  const inPod = async (argv: string[]): Promise<{ code: number; stdout: string }> => {
    const [file, ...args] = netnsArgv(clientNetns, argv);
    const r = await run(file!, args, '', 15_000);
    return { code: r.code, stdout: r.stdout };
  };
  const dig = async (...args: string[]): Promise<string> => (await inPod(['dig', `@${dnsIp}`, '+time=2', '+tries=1', ...args])).stdout;
  const short = async (...args: string[]): Promise<string[]> => (await dig('+short', ...args)).trim().split('\n').filter(Boolean).sort();

  /** The named namespace of ours holding an address (the pod's sandbox). */
  const netnsHolding = async (ip: string): Promise<string> => {
    for (const ns of world.namespaces().filter((n) => n.startsWith(`${world.prefix}-p`))) {
      const r = await run('nsenter', [`--net=/run/netns/${ns}`, 'ip', '-4', '-o', 'addr', 'show']);
      if (r.stdout.includes(` ${ip}/`)) return `/run/netns/${ns}`;
    }
    throw new Error(`no namespace holds ${ip}`);
  };

  before(async () => {
    world = new DataplaneWorld();
    await world.start();
    await world.network();
    await world.cluster(CLUSTER, ['--network-plugin', 'kubenet', '--pod-cidr', '10.244.0.0/16']);
    const pods = await world.podsOnEachNode();
    await world.kubectlOk(['wait', '--for=condition=Ready', 'pod', '-n', 'kube-system', '-l', 'k8s-app=kube-dns', '--timeout=90s']);
    const coredns: Obj[] = (await world.json(['get', 'pods', '-n', 'kube-system', '-l', 'k8s-app=kube-dns'])).items;
    dnsIp = coredns[0].status.podIP;
    clientNetns = await netnsHolding(pods[0].status.podIP);
    await world.create(
      'dns.json',
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'List',
        items: [
          {
            apiVersion: 'v1',
            kind: 'Service',
            metadata: { name: 'web' },
            spec: { selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 8080 }] },
          },
          {
            apiVersion: 'v1',
            kind: 'Service',
            metadata: { name: 'db' },
            spec: { clusterIP: 'None', selector: { app: 'db' }, ports: [{ name: 'pg', port: 5432 }] },
          },
          {
            apiVersion: 'v1',
            kind: 'Pod',
            metadata: { name: 'db-0', labels: { app: 'db' } },
            spec: { hostname: 'db-0', subdomain: 'db', containers: [{ name: 'db', image: 'nginx', ports: [{ containerPort: 5432 }] }] },
          },
        ],
      }),
    );
    await world.kubectlOk(['wait', '--for=condition=Ready', 'pod/db-0', '--timeout=60s']);
    db0 = await world.json(['get', 'pod', 'db-0']);
    webIp = (await world.json(['get', 'service', 'web'])).spec.clusterIP;
  });
  after(async () => {
    await world?.close();
    world?.assertClean();
  });

  it('the coredns pods are Running and Ready, each serving in its own namespace', async () => {
    const rows = await world.kubectlOk(['get', 'pods', '-n', 'kube-system', '-l', 'k8s-app=kube-dns', '--no-headers']);
    assert.equal(rows.trim().split('\n').length, 2, rows);
    for (const row of rows.trim().split('\n')) assert.match(row, /\s1\/1\s+Running\s/);
    const logs = await world.kubectlOk(['logs', '-n', 'kube-system', 'deployment/coredns']);
    assert.match(logs, /^\.:53\nCoreDNS-1\.11\.3\n/);
  });

  it('dig: a Service A is its ClusterIP, SRV names its port; over UDP and TCP', async () => {
    await eventually(async () => (await short('web.default.svc.cluster.local')).join() === webIp, 10_000, 'the zone has the Service');
    assert.deepEqual(await short('+tcp', 'web.default.svc.cluster.local'), [webIp]);
    assert.deepEqual(await short('SRV', '_http._tcp.web.default.svc.cluster.local'), ['0 100 80 web.default.svc.cluster.local.']);
    const full = await dig('web.default.svc.cluster.local');
    assert.match(full, /status: NOERROR/);
    assert.match(full, /flags: qr aa rd;/);
  });

  it('dig: a headless Service is its ready pods, the pod answers by hostname, SRV points at it, PTR back', async () => {
    const ip = db0.status.podIP;
    await eventually(async () => (await short('db.default.svc.cluster.local')).join() === ip, 10_000, 'the zone has the headless endpoints');
    assert.deepEqual(await short('db-0.db.default.svc.cluster.local'), [ip]);
    assert.deepEqual(await short('SRV', '_pg._tcp.db.default.svc.cluster.local'), ['0 100 5432 db-0.db.default.svc.cluster.local.']);
    assert.deepEqual(await short('-x', ip), ['db-0.db.default.svc.cluster.local.']);
    assert.deepEqual(await short(`${ip.replaceAll('.', '-')}.default.pod.cluster.local`), [ip]);
  });

  it("dig: NXDOMAIN with the SOA inside cluster.local; outside it, the VNet's Azure DNS answers through the forward: a node's internal name, NXDOMAIN for the rest", async () => {
    const nx = await dig('nope.default.svc.cluster.local');
    assert.match(nx, /status: NXDOMAIN/);
    assert.match(nx, /cluster\.local\.\s+5\s+IN\s+SOA\s+ns\.dns\.cluster\.local\. hostmaster\.cluster\.local\./);
    assert.deepEqual(await short('kubernetes.default.svc.cluster.local'), [(await world.json(['get', 'service', 'kubernetes'])).spec.clusterIP]);
    // Relayed as Azure DNS answered: a recursive resolver's answer (ra), not authoritative.
    const outside = await dig('www.example.com');
    assert.match(outside, /status: NXDOMAIN/);
    assert.match(outside, /flags: qr rd ra;/);
    const root = nodeRootDir(world.home, RG, CLUSTER, db0.spec.nodeName);
    const suffix = /search .* (\S+\.internal\.cloudapp\.net)\n/.exec(readFileSync(podResolvConfPath(root, db0.metadata.uid), 'utf8'))?.[1];
    assert.ok(suffix, 'the node search domain');
    const node = (await world.json(['get', 'node', db0.spec.nodeName])).status.addresses.find((a: Obj) => a.type === 'InternalIP').address;
    assert.deepEqual(await short(`${db0.spec.nodeName}.${suffix}`), [node]);
    assert.match(await dig(`nosuch.${suffix}`), /status: NXDOMAIN/);
  });

  it('garbage over UDP and TCP gets FORMERR or nothing, and the server keeps answering', async () => {
    const send = async (argv: string[], input: Buffer): Promise<void> => {
      const [file, ...args] = netnsArgv(clientNetns, argv);
      await run(file!, args, input.toString('latin1'), 10_000);
    };
    for (let i = 0; i < 5; i++) await send(['nc', '-u', '-w1', dnsIp, '53'], Buffer.from(Array.from({ length: 40 + i * 50 }, (_, k) => (k * 37 + i) & 0xff)));
    await send(['nc', '-w1', dnsIp, '53'], Buffer.from([0xff, 0xff, 1, 2, 3]));
    assert.deepEqual(await short('web.default.svc.cluster.local'), [webIp]);
  });

  it('nslookup: the Service and the headless pod', async () => {
    const svc = await inPod(['nslookup', 'web.default.svc.cluster.local.', dnsIp]);
    assert.equal(svc.code, 0, svc.stdout);
    assert.match(svc.stdout, new RegExp(`Name:\\s+web\\.default\\.svc\\.cluster\\.local\\nAddress: ${webIp.replaceAll('.', '\\.')}`));
    const pod = await inPod(['nslookup', 'db-0.db.default.svc.cluster.local.', dnsIp]);
    assert.match(pod.stdout, new RegExp(`Address: ${db0.status.podIP.replaceAll('.', '\\.')}`));
  });

  it("the kubelet's resolv.conf and hosts for the pod, at the exported paths; gone with the pod", async () => {
    const root = nodeRootDir(world.home, RG, CLUSTER, db0.spec.nodeName);
    const uid = db0.metadata.uid;
    const dnsServiceIp = (await world.json(['get', 'service', '-n', 'kube-system', 'kube-dns'])).spec.clusterIP;
    assert.match(
      readFileSync(podResolvConfPath(root, uid), 'utf8'),
      new RegExp(
        `^search default\\.svc\\.cluster\\.local svc\\.cluster\\.local cluster\\.local \\S+\\.internal\\.cloudapp\\.net\\nnameserver ${dnsServiceIp}\\noptions ndots:5\\n$`,
      ),
    );
    assert.match(readFileSync(podHostsPath(root, uid), 'utf8'), new RegExp(`\\n${db0.status.podIP}\\tdb-0\\.db\\.default\\.svc\\.cluster\\.local\\tdb-0\\n$`));
    await world.kubectlOk(['delete', 'pod', 'db-0', '--wait=true', '--timeout=60s']);
    await eventually(async () => !existsSync(podResolvConfPath(root, uid)), 10_000, 'the files go with the pod');
    await eventually(
      async () => (await dig('db.default.svc.cluster.local')).includes('status: NOERROR') && (await short('db.default.svc.cluster.local')).length === 0,
      10_000,
      'the endpoint leaves the zone',
    );
  });
});
