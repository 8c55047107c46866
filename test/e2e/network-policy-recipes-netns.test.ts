// The published NetworkPolicy recipes (github.com/ahmetb/kubernetes-network-policy-recipes, the ones every
// tutorial copies) replayed with the real kubectl on the netns data plane, kubenet with Calico's network policy
// (docs/clients.md §5.20): each recipe's own set-up commands and manifest, and its `kubectl run --rm -i -t
// --image=alpine -- sh` then `wget -qO- --timeout=2 http://…` made non-interactive (`kubectl run --rm -i
// --restart=Never --image=alpine -- wget …`), with the outcome the recipe shows: the page, or busybox's
// `wget: download timed out`, or `wget: bad address` when DNS is blocked too. Recipe 09's image
// (ahmet/app-on-two-ports) is not one aksemu emulates: agnhost's netexec serves its two ports instead. Root only.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { KUBECTL, type KubectlResult, runTool } from '../cluster/harness.js';
import { DataplaneWorld, eventually, skipReason } from './dataplane-harness.js';

type Obj = Record<string, unknown>;
const CLUSTER = 'rcp1';

/** Recipes 11 and 14's egress rule: DNS (53/udp and 53/tcp) to anywhere. */
const ALLOW_DNS = {
  ports: [
    { port: 53, protocol: 'UDP' },
    { port: 53, protocol: 'TCP' },
  ],
};

/** What a client pod saw. */
type Outcome = 'page' | 'timeout' | 'bad address' | 'other';

describe('NetworkPolicy recipes replayed with kubectl run --rm -i (netns data plane)', { skip: skipReason() }, () => {
  let world: DataplaneWorld;
  let n = 0;

  /** `kubectl run test-N --rm -i --restart=Never --image=alpine [run flags] -- wget ARGS…` and what it saw. */
  async function client(flags: string[], wget: string[]): Promise<{ outcome: Outcome; result: KubectlResult }> {
    const name = `test-${++n}`;
    const result = await runTool(
      KUBECTL,
      [`--cache-dir=${join(world.scratch, `cache-r${n}`)}`, 'run', name, '--rm', '-i', '--restart=Never', '--image=alpine', ...flags, '--', 'wget', ...wget],
      { KUBECONFIG: world.kubeconfig, HOME: world.scratch },
      120_000,
    );
    const outcome: Outcome =
      result.code === 0
        ? 'page'
        : /^wget: download timed out$/m.test(result.stderr)
          ? 'timeout'
          : /^wget: bad address '/m.test(result.stderr)
            ? 'bad address'
            : 'other';
    return { outcome, result };
  }

  /** The recipe's check: `wget -qO- --timeout=2 URL` from a pod made with `flags` sees `expected`. */
  async function expect(flags: string[], url: string, expected: Outcome, wget = ['-qO-', '--timeout=2']): Promise<KubectlResult> {
    const { outcome, result } = await client(flags, [...wget, url]);
    assert.equal(outcome, expected, `${flags.join(' ')} ${url}: ${result.stdout}\n${result.stderr}`);
    return result;
  }

  /** The first check after a policy: its outcome once the policy is on the nodes (it gets there asynchronously). */
  async function settles(flags: string[], url: string, expected: Outcome, wget?: string[]): Promise<KubectlResult> {
    let last: { outcome: Outcome; result: KubectlResult } | undefined;
    await eventually(
      async () => {
        last = await client(flags, [...(wget ?? ['-qO-', '--timeout=2']), url]);
        return last.outcome === expected;
      },
      90_000,
      `${url} from a pod with ${flags.join(' ') || 'no flags'} to give ${expected}`,
    ).catch((e: Error) => {
      throw new Error(`${e.message}; last: ${last?.result.stdout}\n${last?.result.stderr}`);
    });
    return last!.result;
  }

  const apply = (name: string, policy: Obj) =>
    world.create(`${name}.json`, JSON.stringify({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', ...policy }));
  const kubectl = (args: string[]) => world.kubectlOk(args);
  /** The recipes' backend: `kubectl run NAME --image=nginx --labels … --expose --port 80`, until Ready. */
  const nginx = async (name: string, labels: string, namespace = 'default') => {
    await kubectl(['run', name, '--namespace', namespace, '--image=nginx', `--labels=${labels}`, '--expose', '--port', '80']);
    await ready(labels, namespace);
  };
  /** A recipe's cleanup: its policy, its backend pod and Service. */
  const cleanUp = async (policy: string, backend: string) => {
    await kubectl(['delete', 'networkpolicy', policy]);
    await kubectl(['delete', 'pod,service', backend]);
  };
  const ready = (selector: string, namespace = 'default') =>
    kubectl(['wait', '--for=condition=Ready', 'pod', '-n', namespace, '-l', selector, '--timeout=60s']);

  before(async () => {
    world = new DataplaneWorld();
    await world.start();
    await world.network();
    await world.cluster(CLUSTER, ['--network-plugin', 'kubenet', '--pod-cidr', '10.244.0.0/16', '--network-policy', 'calico']);
    await kubectl(['wait', '--for=condition=Ready', 'pod', '-n', 'kube-system', '-l', 'k8s-app=kube-dns', '--timeout=90s']);
  });
  after(async () => {
    await world?.close();
    world?.assertClean();
  });

  it('01 DENY all traffic to an application, then 03 DENY all non-whitelisted traffic in the namespace', async () => {
    await nginx('web', 'app=web,env=prod');
    await expect([], 'http://web', 'page');
    await apply('web-deny-all', { metadata: { name: 'web-deny-all' }, spec: { podSelector: { matchLabels: { app: 'web', env: 'prod' } } } });
    await settles([], 'http://web', 'timeout');
    await kubectl(['delete', 'networkpolicy', 'web-deny-all']);
    await settles([], 'http://web', 'page');
    await apply('default-deny-all', { metadata: { name: 'default-deny-all', namespace: 'default' }, spec: { podSelector: {}, ingress: [] } });
    await settles([], 'http://web', 'timeout');
    await cleanUp('default-deny-all', 'web');
  });

  it('02 LIMIT traffic to an application: only pods labelled app=bookstore get through', async () => {
    await nginx('apiserver', 'app=bookstore,role=api');
    await apply('api-allow', {
      metadata: { name: 'api-allow' },
      spec: { podSelector: { matchLabels: { app: 'bookstore', role: 'api' } }, ingress: [{ from: [{ podSelector: { matchLabels: { app: 'bookstore' } } }] }] },
    });
    await settles([], 'http://apiserver', 'timeout');
    await expect(['--labels', 'app=bookstore,role=frontend'], 'http://apiserver', 'page');
    await cleanUp('api-allow', 'apiserver');
  });

  it('04 DENY all traffic from other namespaces: web.secondary answers its own namespace only', async () => {
    await kubectl(['create', 'namespace', 'secondary']);
    await nginx('web', 'app=web', 'secondary');
    await apply('deny-from-other-namespaces', {
      metadata: { namespace: 'secondary', name: 'deny-from-other-namespaces' },
      spec: { podSelector: { matchLabels: {} }, ingress: [{ from: [{ podSelector: {} }] }] },
    });
    await settles(['--namespace=default'], 'http://web.secondary', 'timeout');
    await expect(['--namespace=secondary'], 'http://web.secondary', 'page');
    await kubectl(['delete', 'namespace', 'secondary']);
  });

  it('06 ALLOW all traffic from a namespace: prod (purpose=production) gets through, dev does not', async () => {
    await nginx('web', 'app=web');
    for (const [ns, purpose] of [
      ['dev', 'testing'],
      ['prod', 'production'],
    ]) {
      await kubectl(['create', 'namespace', ns!]);
      await kubectl(['label', `namespace/${ns}`, `purpose=${purpose}`]);
    }
    await apply('web-allow-prod', {
      metadata: { name: 'web-allow-prod' },
      spec: { podSelector: { matchLabels: { app: 'web' } }, ingress: [{ from: [{ namespaceSelector: { matchLabels: { purpose: 'production' } } }] }] },
    });
    await settles(['--namespace=dev'], 'http://web.default', 'timeout');
    await expect(['--namespace=prod'], 'http://web.default', 'page');
    await cleanUp('web-allow-prod', 'web');
  });

  it('09 ALLOW traffic only to a port: role=monitoring reaches port 5000 only (agnhost netexec for the two-port app)', async () => {
    const netexec = (name: string, port: number) => ({
      name,
      image: 'registry.k8s.io/e2e-test-images/agnhost:2.52',
      args: ['netexec', `--http-port=${port}`, '--udp-port=-1'],
      ports: [{ containerPort: port }],
    });
    await world.create(
      'apiserver-two-ports.json',
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'apiserver-2p', labels: { app: 'apiserver' } },
        spec: { containers: [netexec('http', 8000), netexec('metrics', 5000)] },
      }),
    );
    await kubectl(['create', 'service', 'clusterip', 'apiserver', '--tcp', '8001:8000', '--tcp', '5001:5000']);
    await ready('app=apiserver');
    await expect([], 'http://apiserver:5001/hostname', 'page');
    await apply('api-allow-5000', {
      metadata: { name: 'api-allow-5000' },
      spec: {
        podSelector: { matchLabels: { app: 'apiserver' } },
        ingress: [{ ports: [{ port: 5000 }], from: [{ podSelector: { matchLabels: { role: 'monitoring' } } }] }],
      },
    });
    await settles([], 'http://apiserver:5001/hostname', 'timeout');
    await expect([], 'http://apiserver:8001', 'timeout');
    const metrics = await expect(['--labels=role=monitoring'], 'http://apiserver:5001/hostname', 'page');
    assert.match(metrics.stdout, /^apiserver-2p/);
    await expect(['--labels=role=monitoring'], 'http://apiserver:8001', 'timeout');
  });

  it('11 DENY egress traffic from an application: no DNS (bad address), then DNS allowed and the connection times out', async () => {
    await nginx('web', 'app=web');
    await apply('foo-deny-egress', {
      metadata: { name: 'foo-deny-egress' },
      spec: { podSelector: { matchLabels: { app: 'foo' } }, policyTypes: ['Egress'], egress: [] },
    });
    await settles(['-l', 'app=foo'], 'http://web:80/', 'bad address', ['-qO-', '--timeout', '1']);
    await kubectl(['delete', 'networkpolicy', 'foo-deny-egress']);
    await apply('foo-deny-egress-dns', {
      metadata: { name: 'foo-deny-egress' },
      spec: {
        podSelector: { matchLabels: { app: 'foo' } },
        policyTypes: ['Egress'],
        egress: [ALLOW_DNS],
      },
    });
    const timedOut = await settles(['-l', 'app=foo'], 'http://web', 'timeout', ['--timeout', '1', '-O-']);
    // DNS answered this time (no bad address). busybox's `Connecting to web (…)` line comes first, at once: kubectl
    // shows it when the pod ended before it attached (it prints the log), not when it attached after the line went by
    // (the kubelet reports the container Running up to a second late), as on a cluster.
    const said = timedOut.stdout + timedOut.stderr;
    assert.doesNotMatch(said, /bad address/);
    assert.match(said, /^wget: download timed out$/m);
    await cleanUp('foo-deny-egress', 'web');
  });

  it('14 DENY external egress traffic: an address outside the cluster times out, DNS and pods in the cluster stay reachable', async () => {
    await nginx('web', 'app=web');
    await apply('foo-deny-external-egress', {
      metadata: { name: 'foo-deny-external-egress' },
      spec: {
        podSelector: { matchLabels: { app: 'foo' } },
        policyTypes: ['Egress'],
        egress: [ALLOW_DNS, { to: [{ namespaceSelector: {} }] }],
      },
    });
    // The recipe's external address (www.example.com) is out of reach offline: the node's address stands for it, an
    // address outside every pod and namespace, which refuses the connection until the policy drops it.
    const [nodeIp] = await world.nodeIps();
    await settles(['-l', 'app=foo'], `http://${nodeIp}:8080/`, 'timeout', ['-O-', '--timeout', '1']);
    // busybox 1.36 names the host as the URL has it, port included (as recipe 11's `bad address 'web:80'`).
    // The pod usually ends before the kubelet reports it Running (up to a second late), so kubectl prints its log
    // (both streams, on stdout). On a loaded machine the kubelet can report it Running first: kubectl then attaches
    // after the line went by and shows nothing of it, as on a cluster (nothing is replayed to an attach). So the
    // page is asked for again, at most three times, until kubectl printed the log; every try must get the page.
    const connecting = /^Connecting to web:80 \(10\.\d+\.\d+\.\d+:80\)$/m;
    const said: string[] = [];
    for (let i = 0; i < 3 && !said.some((s) => connecting.test(s)); i++) {
      const allowed = await expect(['-l', 'app=foo'], 'http://web:80', 'page', ['-O-', '--timeout', '1']);
      said.push(allowed.stdout + allowed.stderr);
      // What an attach that came too late shows: kubectl's prompt, and not a line of the program's.
      if (!connecting.test(said.at(-1)!)) assert.match(said.at(-1)!, /If you don't see a command prompt, try pressing enter\./);
    }
    assert.ok(
      said.some((s) => connecting.test(s)),
      `kubectl never printed busybox's Connecting line: ${said.join('\n---\n')}`,
    );
  });
});
