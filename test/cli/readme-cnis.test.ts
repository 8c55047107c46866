// The README's "Install a CNI" recipes, run as written (readme-harness.ts): each block in a new shell set up with
// `aksemu az-env`, from a directory laid out as the repository's root, where test/fixtures/<project>/<version> is the
// copy test/third-party.ts finds (the repository's own or the workplace's shared one), with the real az, kubectl
// and helm. Each recipe makes its own cluster and ends waiting for every node to be Ready. The first block, the copy
// commands, needs clones of the projects and is not run: the test checks that it names this checkout's tools and
// the paths those tools write, which are the paths the recipes read.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { AZ } from '../az/real-az-env.js';
import { operatorSkipReason } from '../cluster/calico-operator-fixture.js';
import { HAVE_KUBECTL } from '../cluster/harness.js';
import { removeHome, startTestServer, tempHome } from '../e2e/harness.js';
import { ciliumChartSkip } from '../helm/cilium-chart.js';
import { HELM_SKIP, helmBinary } from '../helm/harness.js';
import { thirdPartyFile } from '../third-party.js';
import { REPO, ReaderShell, shellBlocks } from './readme-harness.js';

/** The files the recipes read, each with the tool that copies it in (test/fixtures/<project>/SOURCE.md). */
const FIXTURES = [
  { project: 'cilium', version: 'v1.19.6', file: 'cilium-1.19.6.tgz', tool: 'copy-cilium-chart.mjs' },
  { project: 'calico', version: 'v3.32.1', file: 'operator-crds.yaml', tool: 'copy-calico-manifests.mjs' },
  { project: 'flannel', version: 'v0.28.9', file: 'kube-flannel.yml', tool: 'copy-flannel-manifest.mjs' },
];

const skip =
  (!existsSync(AZ) && `${AZ} is not installed`) ||
  (!HAVE_KUBECTL && 'kubectl is not installed') ||
  HELM_SKIP ||
  ciliumChartSkip() ||
  operatorSkipReason() ||
  FIXTURES.map((f) => ({ ...f, path: thirdPartyFile(f.project, f.version, f.file) }))
    .filter((f) => !existsSync(f.path))
    .map((f) => `${f.path} is not copied in (node tools/${f.tool}, see test/fixtures/${f.project}/SOURCE.md)`)[0] ||
  false;

test("README: Install a CNI, every recipe as written, from local copies of the projects' files", {
  skip,
  timeout: 900_000,
}, async (t) => {
  const blocks = shellBlocks('### Install a CNI');
  assert.equal(blocks.length, 4, 'the copy commands, then Cilium, Calico and flannel');
  const [copies, cilium, calico, flannel] = blocks as [string, string, string, string];
  // The README's own group creation, from the walk-through whose shell the recipes run in.
  const group = shellBlocks('### Walk-through: bring your own CNI')[0]!
    .split('\n')
    .find((l) => l.startsWith('az group create'));
  assert.ok(group, 'the walk-through creates the resource group');

  const root = mkdtempSync(join(tmpdir(), 'aksemu-readme-root-'));
  for (const f of FIXTURES) {
    assert.ok(existsSync(join(REPO, 'tools', f.tool)), `tools/${f.tool}`);
    assert.match(copies, new RegExp(`^node tools/${f.tool.replaceAll('.', '\\.')} .*→ test/fixtures/${f.project}/${f.version}/`, 'm'));
    mkdirSync(join(root, 'test', 'fixtures', f.project), { recursive: true });
    symlinkSync(thirdPartyFile(f.project, f.version), join(root, 'test', 'fixtures', f.project, f.version));
  }
  const home = tempHome();
  const server = await startTestServer({ home });
  const shell = new ReaderShell(home, { cwd: root, path: [dirname(helmBinary())], timeoutMs: 300_000 });
  const recipe = (block: string) => shell.ok(`eval "$(aksemu az-env)"\n${block}`);
  try {
    await shell.ok(`eval "$(aksemu az-env)"\n${group}`);
    await t.test('Cilium: helm install of the chart package; every node Ready, one CiliumNode each', async () => {
      const r = await recipe(cilium);
      assert.match(r.stdout, /STATUS: deployed/);
      assert.equal((r.stdout.match(/^node\/\S+ condition met$/gm) ?? []).length, 3, r.stdout);
      assert.equal((r.stdout.match(/^aks-nodepool1-\d{8}-vmss00000\d\s/gm) ?? []).length, 3, r.stdout);
    });
    await t.test('Calico: the tigera operator and the Installation; every node Ready', async () => {
      const r = await recipe(calico);
      assert.match(r.stdout, /installation\.operator\.tigera\.io\/default created/);
      assert.equal((r.stdout.match(/^node\/\S+ condition met$/gm) ?? []).length, 3, r.stdout);
      assert.match(r.stdout, /^tigerastatus\.operator\.tigera\.io\/calico condition met$/m);
      assert.match(r.stdout, /^calico\s+True\s/m);
    });
    await t.test("flannel: the manifest on a cluster of its Network, the nodes' pod CIDRs patched; every node Ready", async () => {
      const r = await recipe(flannel);
      assert.equal((r.stdout.match(/patched/g) ?? []).length, 3, r.stdout);
      assert.equal((r.stdout.match(/^node\/\S+ condition met$/gm) ?? []).length, 3, r.stdout);
    });
  } finally {
    await server.close();
    removeHome(home);
    shell.remove();
    rmSync(root, { recursive: true, force: true });
  }
});
