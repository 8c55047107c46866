// A stopped cluster runtime writes nothing more under its home: a pod's resolv.conf/hosts queued before the stop
// are written before the server's close() resolves, and log lines or pod files asked for after it are dropped (the next
// start sets those pods up again). Otherwise a home removed right after close() — a test's temp home, a user's
// `rm -rf ~/.aksemu` — comes back as `clusters/<rg>_<name>/nodes/<node>/var/…`, as leftover test homes showed.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ContainerLogs } from '../../src/cluster/kubelet/container-logs.js';
import { PodDnsFiles } from '../../src/cluster/kubelet/pod-files.js';
import { podDir, podResolvConfPath } from '../../src/cluster/nodefs/node-root.js';
import type { KubeObject } from '../../src/cluster/apimachinery/object.js';

const KUBELET = { clusterDns: ['10.0.0.10'], clusterDomain: 'cluster.local', node: { nameservers: ['168.63.129.16'], searches: [], options: [] } };

function pod(): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web-0', namespace: 'default', uid: randomUUID() },
    spec: { containers: [] },
  } as unknown as KubeObject;
}

describe('writes after a cluster runtime stops', () => {
  it('pod files: what was queued before close() is written by settled(); what is asked after it is not', async () => {
    const root = mkdtempSync(join(tmpdir(), 'aksemu-close-files-'));
    try {
      const files = new PodDnsFiles(
        () => root,
        () => KUBELET,
        () => undefined,
      );
      const before = pod();
      const after = pod();
      files.write(before, 'node-0', ['10.244.0.9']);
      files.close();
      files.write(after, 'node-0', ['10.244.0.10']);
      await files.settled();
      assert.match(readFileSync(podResolvConfPath(root, before.metadata.uid!), 'utf8'), /nameserver 10\.0\.0\.10/);
      assert.equal(existsSync(podDir(root, after.metadata.uid!)), false, 'a write asked for after close() made a directory');
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('container logs: a live run prints nothing to disk once the runtime stopped', () => {
    const root = mkdtempSync(join(tmpdir(), 'aksemu-close-logs-'));
    try {
      const logs = new ContainerLogs((node) => join(root, node));
      const running = { node: 'node-0', namespace: 'kube-system', pod: 'kube-proxy-a', uid: randomUUID() };
      const starting = { node: 'node-1', namespace: 'kube-system', pod: 'kube-proxy-b', uid: randomUUID() };
      logs.begin(running, 'kube-proxy', 0);
      logs.append(running, 'kube-proxy', 0, 'stdout', 'first\n');
      logs.begin(starting, 'kube-proxy', 0);
      logs.close();
      logs.append(running, 'kube-proxy', 0, 'stdout', 'second\n');
      logs.append(starting, 'kube-proxy', 0, 'stdout', 'not emulated\n');
      assert.deepEqual(
        logs.read(running, 'kube-proxy', 0)?.map((l) => l.text),
        ['first'],
      );
      assert.equal(existsSync(join(root, 'node-1')), false, "a container that started as the runtime stopped made its node's directory");
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
