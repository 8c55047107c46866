// `aksemu cni install` (src/cluster/install.ts) on a cluster's node dirs: one conflist for every node and for nodes
// added later, or with `node` for that node only (a conflist naming the node's own pod range).
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { CniInstallError, installCni } from '../../src/cluster/install.js';
import { clusterCniDir, cniInstallRecord, nodeConfDir, nodesDir } from '../../src/cluster/nodefs/paths.js';

const NODES = ['aks-nodepool1-12345678-vmss000000', 'aks-nodepool1-12345678-vmss000001'];
const conflist = (subnet: string) =>
  JSON.stringify({ cniVersion: '1.0.0', name: 'mynet', plugins: [{ type: 'bridge', ipam: { type: 'host-local', ranges: [[{ subnet }]] } }] });

describe('installCni', () => {
  let home: string;
  let file: string;
  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'aksemu-install-'));
    for (const n of NODES) mkdirSync(join(nodesDir(home, 'rg', 'c1'), n), { recursive: true });
    file = join(home, 'my-cni-1.conflist');
    writeFileSync(file, conflist('10.10.1.0/24'));
  });
  afterEach(() => rmSync(home, { recursive: true, force: true }));

  it('with node: that node only, not the cluster default for nodes added later; the install is recorded', () => {
    const r = installCni({ home, resourceGroup: 'rg', cluster: 'c1', conflistFile: file, node: NODES[1]! });
    assert.deepEqual(r.nodes, [NODES[1]]);
    assert.equal(readFileSync(join(nodeConfDir(home, 'rg', 'c1', NODES[1]!), 'my-cni-1.conflist'), 'utf8'), conflist('10.10.1.0/24'));
    assert.equal(existsSync(join(nodeConfDir(home, 'rg', 'c1', NODES[0]!), 'my-cni-1.conflist')), false);
    assert.equal(existsSync(clusterCniDir(home, 'rg', 'c1')), false);
    assert.equal(JSON.parse(readFileSync(cniInstallRecord(home, 'rg', 'c1'), 'utf8')).network, 'mynet');
  });

  it('without node: every node and the cluster default', () => {
    const r = installCni({ home, resourceGroup: 'rg', cluster: 'c1', conflistFile: file });
    assert.deepEqual(r.nodes, NODES);
    for (const n of NODES) assert.ok(existsSync(join(nodeConfDir(home, 'rg', 'c1', n), 'my-cni-1.conflist')));
    assert.ok(existsSync(join(clusterCniDir(home, 'rg', 'c1'), 'my-cni-1.conflist')));
  });

  it('a node the cluster does not have is refused, naming the nodes it has, and nothing is written', () => {
    assert.throws(
      () => installCni({ home, resourceGroup: 'rg', cluster: 'c1', conflistFile: file, node: 'aks-nodepool1-12345678-vmss000009' }),
      (e: unknown) =>
        e instanceof CniInstallError && e.message === `cluster 'c1' has no node 'aks-nodepool1-12345678-vmss000009' (its nodes: ${NODES.join(', ')})`,
    );
    for (const n of NODES) assert.equal(existsSync(join(nodeConfDir(home, 'rg', 'c1', n), 'my-cni-1.conflist')), false);
    assert.equal(existsSync(cniInstallRecord(home, 'rg', 'c1')), false);
  });
});
