// The CNI DaemonSet pattern (kube-flannel.yml, calico.yaml) on a BYO CNI cluster: the real kubectl applies a
// ConfigMap and a host-network DaemonSet whose init container copies the conflist from the ConfigMap volume into
// the hostPath /etc/cni/net.d; the scheduler places a pod on every NotReady node (it tolerates the taint), the
// init container's copy lands in that node's conf dir, and the nodes turn Ready. The init-container interpreter
// is also driven directly with pods built from the same manifests: flannel's cp, `sh -c` scripts, Calico's
// install-cni with its env from a ConfigMap, and the failures a real container would print.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { loadDefaultNetwork } from '../../src/cni/confdir.js';
import { imageSpecOf } from '../../src/cluster/images/catalogue.js';
import type { KubeObject } from '../../src/cluster/apimachinery/object.js';
import { nodeConfDir, nodesDir } from '../../src/cluster/nodefs/paths.js';
import { createContainerRunner } from '../../src/cluster/kubelet/init-containers.js';
import { Cidr, IpAddress } from '../../src/net/ip.js';
import { eventually, HAVE_KUBECTL, kubectl, withCluster, type ClusterEnv } from './harness.js';

const skip = HAVE_KUBECTL ? false : 'no /usr/bin/kubectl on this machine';
/** The DaemonSet needs the scheduler and the kubelet's pod lifecycle (src/cluster/scheduler/scheduler.ts and friends). */
const HAVE_SCHEDULER = existsSync(fileURLToPath(new URL('../../src/cluster/scheduler/scheduler.js', import.meta.url)));

/** Small on purpose: six addresses per node (.1 is the gateway), so exhaustion is a few pods away. */
const POD_RANGE = '10.244.7.0/29';
const CNI_CONF = JSON.stringify({
  name: 'cbr0',
  cniVersion: '0.3.1',
  plugins: [
    { type: 'bridge', bridge: 'cni0', isGateway: true, ipMasq: true, ipam: { type: 'host-local', ranges: [[{ subnet: POD_RANGE }]] } },
    { type: 'portmap', capabilities: { portMappings: true } },
  ],
});

/** kube-flannel.yml's shape (v0.25: the plugin binary copy, then the conflist copy), with a bridge conflist. */
const FLANNEL_YAML = `kind: ConfigMap
apiVersion: v1
metadata:
  name: kube-flannel-cfg
  namespace: kube-system
  labels: {tier: node, app: flannel}
data:
  cni-conf.json: |
    ${CNI_CONF}
  net-conf.json: |
    {"Network": "10.244.0.0/16", "Backend": {"Type": "vxlan"}}
---
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: kube-flannel-ds
  namespace: kube-system
  labels: {tier: node, app: flannel}
spec:
  selector:
    matchLabels: {app: flannel}
  template:
    metadata:
      labels: {tier: node, app: flannel}
    spec:
      hostNetwork: true
      priorityClassName: system-node-critical
      tolerations:
      - operator: Exists
        effect: NoSchedule
      initContainers:
      - name: install-cni-plugin
        image: docker.io/flannel/flannel-cni-plugin:v1.5.1-flannel2
        command: [cp]
        args: [-f, /flannel, /opt/cni/bin/flannel]
        volumeMounts:
        - {name: cni-plugin, mountPath: /opt/cni/bin}
      - name: install-cni
        image: docker.io/flannel/flannel:v0.25.6
        command: [cp]
        args: [-f, /etc/kube-flannel/cni-conf.json, /etc/cni/net.d/10-flannel.conflist]
        volumeMounts:
        - {name: cni, mountPath: /etc/cni/net.d}
        - {name: flannel-cfg, mountPath: /etc/kube-flannel/}
      containers:
      - name: kube-flannel
        image: docker.io/flannel/flannel:v0.25.6
        command: [/opt/bin/flanneld]
        args: [--ip-masq, --kube-subnet-mgr]
      volumes:
      - {name: cni-plugin, hostPath: {path: /opt/cni/bin}}
      - {name: cni, hostPath: {path: /etc/cni/net.d}}
      - {name: flannel-cfg, configMap: {name: kube-flannel-cfg}}
`;

/** calico.yaml's calico-config and the install-cni init container of calico-node. */
const CALICO_CONFIG = `kind: ConfigMap
apiVersion: v1
metadata:
  name: calico-config
  namespace: kube-system
data:
  typha_service_name: "none"
  calico_backend: "bird"
  veth_mtu: "1440"
  cni_network_config: |-
    {
      "name": "k8s-pod-network",
      "cniVersion": "0.3.1",
      "plugins": [
        {
          "type": "calico",
          "log_level": "info",
          "log_file_path": "/var/log/calico/cni/cni.log",
          "datastore_type": "kubernetes",
          "nodename": "__KUBERNETES_NODE_NAME__",
          "mtu": __CNI_MTU__,
          "ipam": {"type": "calico-ipam"},
          "policy": {"type": "k8s"},
          "kubernetes": {"kubeconfig": "__KUBECONFIG_FILEPATH__"}
        },
        {"type": "portmap", "snat": true, "capabilities": {"portMappings": true}},
        {"type": "bandwidth", "capabilities": {"bandwidth": true}}
      ]
    }
  broken_network_config: |-
    {"name": "k8s-pod-network", "plugins": [ {"type": "calico", "mtu": __CNI_MTU__ ]}
`;

function calicoPodSpec(configKey: string) {
  return {
    hostNetwork: true,
    tolerations: [{ operator: 'Exists', effect: 'NoSchedule' }],
    initContainers: [
      {
        name: 'install-cni',
        image: 'docker.io/calico/cni:v3.28.0',
        command: ['/opt/cni/bin/install'],
        env: [
          { name: 'CNI_CONF_NAME', value: '10-calico.conflist' },
          { name: 'CNI_NETWORK_CONFIG', valueFrom: { configMapKeyRef: { name: 'calico-config', key: configKey } } },
          { name: 'KUBERNETES_NODE_NAME', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } },
          { name: 'CNI_MTU', valueFrom: { configMapKeyRef: { name: 'calico-config', key: 'veth_mtu' } } },
          { name: 'SLEEP', value: 'false' },
        ],
        volumeMounts: [
          { mountPath: '/host/opt/cni/bin', name: 'cni-bin-dir' },
          { mountPath: '/host/etc/cni/net.d', name: 'cni-net-dir' },
        ],
      },
    ],
    containers: [{ name: 'calico-node', image: 'docker.io/calico/node:v3.28.0' }],
    volumes: [
      { name: 'cni-bin-dir', hostPath: { path: '/opt/cni/bin' } },
      { name: 'cni-net-dir', hostPath: { path: '/etc/cni/net.d' } },
    ],
  };
}

let serial = 0;
function podOf(spec: Record<string, unknown>, node: string, namespace = 'kube-system'): KubeObject {
  serial++;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: `cni-${serial}`, namespace, uid: `00000000-0000-0000-0000-${String(serial).padStart(12, '0')}` },
    spec: { ...spec, nodeName: node },
  };
}

async function apply(env: ClusterEnv, file: string, yaml: string): Promise<void> {
  const path = join(env.scratch, file);
  writeFileSync(path, yaml);
  const r = await kubectl(env, ['apply', '-f', path]);
  assert.equal(r.code, 0, r.stderr);
}

async function nodeNames(env: ClusterEnv): Promise<string[]> {
  const r = await kubectl(env, ['get', 'nodes', '-o', 'jsonpath={.items[*].metadata.name}']);
  assert.equal(r.code, 0, r.stderr);
  return r.stdout.trim().split(/\s+/);
}

async function readyStatus(env: ClusterEnv, node: string): Promise<string> {
  const r = await kubectl(env, ['get', 'node', node, '-o', 'jsonpath={.status.conditions[?(@.type=="Ready")].status}']);
  return r.stdout.trim();
}

describe('CNI DaemonSets on a BYO CNI cluster', { skip }, () => {
  test(
    'kubectl apply of a flannel-style ConfigMap + DaemonSet: init containers install the conflist on every node, nodes turn Ready, pods get addresses',
    { skip: !HAVE_SCHEDULER && 'the scheduler and pod lifecycle are not built yet (src/cluster/scheduler/scheduler.ts)', timeout: 180_000 },
    () =>
      withCluster({ networkPlugin: 'none' }, async (env) => {
        const nodes = await nodeNames(env);
        assert.equal(nodes.length, 3);
        for (const n of nodes) assert.equal(await readyStatus(env, n), 'False');

        await apply(env, 'kube-flannel.yml', FLANNEL_YAML);
        const wait = await kubectl(env, ['wait', '--for=condition=Ready', 'node', '--all', '--timeout=90s'], 120_000);
        assert.equal(wait.code, 0, wait.stderr);
        for (const n of nodes) {
          assert.equal(readFileSync(join(nodeConfDir(env.home, 'rg', 'c1', n), '10-flannel.conflist'), 'utf8'), `${CNI_CONF}\n`);
          // The node's /opt/cni/bin holds AKS's reference plugins; the image's /flannel lands there when the
          // catalogue knows the image holds it (images/flannel.ts), and the copy is a no-op otherwise.
          const bin = join(nodesDir(env.home, 'rg', 'c1'), n, 'opt', 'cni', 'bin');
          assert.equal(readlinkSync(join(bin, 'bridge')), '/usr/lib/cni/bridge');
          const known = imageSpecOf('docker.io/flannel/flannel-cni-plugin:v1.5.1-flannel2')?.files?.['/flannel'] !== undefined;
          assert.equal(existsSync(join(bin, 'flannel')), known, 'the plugin binary copy');
        }

        // One flannel pod per node, on the node's address (host network).
        const nodeIps = new Map<string, string>();
        const nodeJson = JSON.parse((await kubectl(env, ['get', 'nodes', '-o', 'json'])).stdout) as {
          items: Array<{ metadata: { name: string }; status: { addresses: Array<{ type: string; address: string }> } }>;
        };
        for (const n of nodeJson.items) nodeIps.set(n.metadata.name, n.status.addresses.find((a) => a.type === 'InternalIP')!.address);
        let pods: Array<{ spec: { nodeName: string }; status: { phase: string; podIP?: string } }> = [];
        await eventually(
          async () => {
            const r = await kubectl(env, ['get', 'pods', '-n', 'kube-system', '-l', 'app=flannel', '-o', 'json']);
            pods = (JSON.parse(r.stdout) as { items: typeof pods }).items;
            return pods.length === 3 && pods.every((p) => p.status.phase === 'Running');
          },
          60_000,
          'three Running flannel pods',
        );
        assert.deepEqual(pods.map((p) => p.spec.nodeName).sort(), [...nodes].sort());
        for (const p of pods) assert.equal(p.status.podIP, nodeIps.get(p.spec.nodeName));

        // A pod on the pod network now gets its address from the installed conflist's host-local range.
        await apply(
          env,
          'pod.yaml',
          `apiVersion: v1\nkind: Pod\nmetadata: {name: web, namespace: default}\nspec:\n  nodeName: ${nodes[0]}\n  containers:\n  - {name: web, image: nginx}\n`,
        );
        let ip = '';
        await eventually(
          async () => {
            ip = (await kubectl(env, ['get', 'pod', 'web', '-o', 'jsonpath={.status.podIP}'])).stdout.trim();
            return ip !== '';
          },
          60_000,
          'the pod address',
        ).catch(async (e: Error) => {
          // Seen once under load in a CI run: say what the pod went through, as a user would look.
          const seen = await kubectl(env, ['describe', 'pod', 'web']);
          throw new Error(`${e.message}\n${seen.stdout}${seen.stderr}`);
        });
        assert.ok(Cidr.parse(POD_RANGE).contains(IpAddress.parse(ip)), ip);
        assert.ok(
          existsSync(join(nodesDir(env.home, 'rg', 'c1'), nodes[0]!, 'var', 'lib', 'cni', 'networks', 'cbr0', ip)),
          'the real host-local reserved it on that node',
        );

        // More pods than the node's range holds: the rest stay ContainerCreating with the kubelet's event.
        await apply(
          env,
          'more.yaml',
          [1, 2, 3, 4, 5, 6]
            .map(
              (i) =>
                `apiVersion: v1\nkind: Pod\nmetadata: {name: web-${i}, namespace: default, labels: {app: web}}\nspec:\n  nodeName: ${nodes[0]}\n  containers:\n  - {name: web, image: nginx}\n`,
            )
            .join('---\n'),
        );
        const expected =
          /^Failed to create pod sandbox: rpc error: code = Unknown desc = failed to setup network for sandbox "[0-9a-f]{64}": plugin type="bridge" failed \(add\): failed to allocate for range 0: no IP addresses available in range set: 10\.244\.7\.1-10\.244\.7\.6$/;
        let refused: string[] = [];
        await eventually(
          async () => {
            const events = JSON.parse((await kubectl(env, ['get', 'events', '-n', 'default', '-o', 'json'])).stdout) as {
              items: Array<{ reason: string; message: string; involvedObject: { name: string } }>;
            };
            refused = [...new Set(events.items.filter((e) => e.reason === 'FailedCreatePodSandBox').map((e) => e.involvedObject.name))];
            for (const e of events.items.filter((x) => x.reason === 'FailedCreatePodSandBox')) assert.match(e.message, expected);
            return refused.length > 0;
          },
          60_000,
          'a FailedCreatePodSandBox event',
        );
        const onNode = JSON.parse((await kubectl(env, ['get', 'pods', '-A', '--field-selector', `spec.nodeName=${nodes[0]}`, '-o', 'json'])).stdout) as {
          items: Array<{ metadata: { name: string }; spec: { hostNetwork?: boolean }; status: { podIP?: string } }>;
        };
        const addressed = onNode.items.filter((p) => !p.spec.hostNetwork && p.status.podIP).map((p) => p.status.podIP!);
        assert.equal(new Set(addressed).size, addressed.length, `never one address for two pods: ${addressed.join(' ')}`);
        assert.ok(addressed.length <= 5);
        const row = await kubectl(env, ['get', 'pod', refused[0]!, '--no-headers']);
        assert.match(row.stdout, /\s0\/1\s+ContainerCreating\s/);
      }),
  );

  test('the init-container interpreter, driven directly: flannel cp, sh -c, Calico install-cni, and the failures', { timeout: 120_000 }, () =>
    withCluster({ networkPlugin: 'none' }, async (env) => {
      const runtime = env.server.clusterApis.runtimeOf(env.clusterId)!;
      const runner = createContainerRunner(runtime);
      const [n0, n1, n2] = (await nodeNames(env)) as [string, string, string];
      const conf = (n: string, f: string) => join(nodeConfDir(env.home, 'rg', 'c1', n), f);

      // Only the ConfigMap goes through the API here; the pod is the DaemonSet's template placed on one node.
      const docs = parseAllDocuments(FLANNEL_YAML).map((d) => d.toJSON() as Record<string, any>);
      await apply(env, 'flannel-cm.yml', `${parseAllDocuments(FLANNEL_YAML)[0]!.toString()}`);
      const template = docs[1]!['spec']['template']['spec'] as Record<string, unknown>;
      assert.equal(await runner.run(podOf(template, n0), n0), undefined);
      assert.equal(readFileSync(conf(n0, '10-flannel.conflist'), 'utf8'), `${CNI_CONF}\n`);
      assert.ok(!existsSync(conf(n1, '10-flannel.conflist')), 'only the pod node');
      const waitOne = await kubectl(env, ['wait', '--for=condition=Ready', `node/${n0}`, '--timeout=30s'], 60_000);
      assert.equal(waitOne.code, 0, waitOne.stderr);
      assert.equal(await readyStatus(env, n1), 'False');

      // sh -c with mkdir -p, `;`, `&&`, echo; hostPath /etc/cni mounted elsewhere; ConfigMap items remapped.
      const shell = {
        hostNetwork: true,
        initContainers: [
          {
            name: 'install',
            image: 'busybox',
            command: ['/bin/sh', '-c'],
            args: [
              'set -e; mkdir -p /host/cni/net.d\necho "installing $CONF_NAME" && cp -f /cfg/nested/conf.json "/host/cni/net.d/${CONF_NAME}" || exit 3; true',
            ],
            env: [{ name: 'CONF_NAME', value: '20-shell.conflist' }],
            volumeMounts: [
              { name: 'etc-cni', mountPath: '/host/cni' },
              { name: 'cfg', mountPath: '/cfg' },
            ],
          },
        ],
        volumes: [
          { name: 'etc-cni', hostPath: { path: '/etc/cni' } },
          { name: 'cfg', configMap: { name: 'kube-flannel-cfg', items: [{ key: 'cni-conf.json', path: 'nested/conf.json' }] } },
        ],
      };
      assert.equal(await runner.run(podOf(shell, n1), n1), undefined);
      assert.equal(readFileSync(conf(n1, '20-shell.conflist'), 'utf8'), `${CNI_CONF}\n`);

      // Calico's install-cni: the template from CNI_NETWORK_CONFIG (a configMapKeyRef), install-cni's substitutions.
      await apply(env, 'calico-config.yml', CALICO_CONFIG);
      assert.equal(await runner.run(podOf(calicoPodSpec('cni_network_config'), n2), n2), undefined);
      const calico = JSON.parse(readFileSync(conf(n2, '10-calico.conflist'), 'utf8')) as { plugins: Array<Record<string, any>> };
      assert.equal(calico.plugins[0]!['nodename'], n2);
      assert.equal(calico.plugins[0]!['mtu'], 1440);
      assert.equal(calico.plugins[0]!['kubernetes']['kubeconfig'], '/etc/cni/net.d/calico-kubeconfig');
      assert.deepEqual(loadDefaultNetwork(nodeConfDir(env.home, 'rg', 'c1', n2))?.types, ['calico', 'portmap', 'bandwidth']);
      const all = await kubectl(env, ['wait', '--for=condition=Ready', 'node', '--all', '--timeout=30s'], 60_000);
      assert.equal(all.code, 0, all.stderr);

      // Failures, as the container would print them; nothing is written.
      const cp = (src: string, dst: string, volumes = template['volumes']) => ({
        initContainers: [
          {
            name: 'install-cni',
            image: 'flannel',
            command: ['cp'],
            args: ['-f', src, dst],
            volumeMounts: [
              { name: 'cni', mountPath: '/etc/cni/net.d' },
              { name: 'flannel-cfg', mountPath: '/etc/kube-flannel/' },
            ],
          },
        ],
        volumes,
      });
      assert.equal(
        await runner.run(podOf(cp('/etc/kube-flannel/missing.json', '/etc/cni/net.d/30-x.conflist'), n0), n0),
        "cp: can't stat '/etc/kube-flannel/missing.json': No such file or directory",
      );
      assert.ok(!existsSync(conf(n0, '30-x.conflist')));
      const noCm = [
        { name: 'cni', hostPath: { path: '/etc/cni/net.d' } },
        { name: 'flannel-cfg', configMap: { name: 'nope' } },
      ];
      assert.equal(
        await runner.run(podOf(cp('/etc/kube-flannel/cni-conf.json', '/etc/cni/net.d/30-x.conflist', noCm), n0), n0),
        'MountVolume.SetUp failed for volume "flannel-cfg" : configmap "nope" not found',
      );
      assert.equal(
        await runner.run(podOf(cp('/bin/busybox', '/etc/cni/net.d/30-x.conflist'), n0), n0),
        "cp: aksemu cannot read '/bin/busybox' (it is in the container image, not in a ConfigMap volume) to write it to '/etc/cni/net.d/30-x.conflist'",
      );
      const sed = {
        initContainers: [
          {
            name: 'patch',
            image: 'busybox',
            command: ['sh', '-c', 'sed -i s/cbr0/cni0/ /etc/cni/net.d/10-flannel.conflist'],
            volumeMounts: [{ name: 'cni', mountPath: '/etc/cni/net.d' }],
          },
        ],
        volumes: template['volumes'],
      };
      assert.match((await runner.run(podOf(sed, n0), n0))!, /^sed: aksemu cannot emulate this command, and it changes the node's \/etc\/cni\/net\.d/);
      const harmless = { initContainers: [{ name: 'wait', image: 'busybox', command: ['sh', '-c', 'until ls /run/flannel/subnet.env; do sleep 1; done'] }] };
      assert.equal(await runner.run(podOf(harmless, n0), n0), undefined, 'commands that do not touch the CNI config are ignored');
      assert.equal(await runner.run(podOf(calicoPodSpec('missing_key'), n0), n0), "couldn't find key missing_key in ConfigMap kube-system/calico-config");
      assert.match(
        (await runner.run(podOf(calicoPodSpec('broken_network_config'), n0), n0))!,
        /cni-installer\/install\.go 385: CNI config is not valid JSON: /,
      );
      assert.ok(!existsSync(conf(n0, '10-calico.conflist')));
      // The first failing init container stops the rest.
      const chain = {
        initContainers: [
          ...cp('/etc/kube-flannel/missing.json', '/etc/cni/net.d/40-a.conflist')['initContainers'],
          ...cp('/etc/kube-flannel/cni-conf.json', '/etc/cni/net.d/40-b.conflist')['initContainers'],
        ],
        volumes: template['volumes'],
      };
      assert.match((await runner.run(podOf(chain, n0), n0))!, /can't stat/);
      assert.ok(!existsSync(conf(n0, '40-b.conflist')));
    }),
  );
});
