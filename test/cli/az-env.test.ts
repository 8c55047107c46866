// `aksemu az-env` and `aksemu sdk-env` as a user runs them: `eval "$(aksemu az-env)"` in a shell, then the
// seed's commands with the real Azure CLI verbatim and the real kubectl; `eval "$(aksemu sdk-env)"`, then
// @azure/identity's credentials and the ARM SDK clients with nothing else configured.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { removeHome, startTestServer, tempHome, type TestServer } from '../e2e/harness.js';
import { aksemu } from '../az/helpers.js';
import { AZ } from '../az/real-az-env.js';
import { HAVE_KUBECTL } from '../cluster/harness.js';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const BIN = join(REPO, 'bin', 'aksemu.js');
const skip = !existsSync(AZ) ? `${AZ} is not installed` : !HAVE_KUBECTL ? 'kubectl is not installed' : false;

let server: TestServer;
let home: string;
let user: string;

/** A login shell's worth of environment for a user whose HOME is a scratch folder; nothing of ours set. */
function userEnv(): NodeJS.ProcessEnv {
  return {
    PATH: process.env['PATH'] ?? '/usr/bin:/bin',
    HOME: user,
    AKSEMU_HOME: home,
    // Nothing listens on port 9: anything that tried to leave the machine would fail fast.
    HTTPS_PROXY: 'http://127.0.0.1:9',
    NO_PROXY: '127.0.0.1,localhost',
  };
}

function bash(script: string, env = userEnv()): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(
      'bash',
      ['-c', `set -euo pipefail\naksemu() { node ${JSON.stringify(BIN)} "$@"; }\n${script}`],
      { env, cwd: REPO, timeout: 240_000 },
      (err, stdout, stderr) => done({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
    );
  });
}

before(async () => {
  if (skip) return;
  home = tempHome();
  user = mkdtempSync(join(tmpdir(), 'aksemu-user-'));
  server = await startTestServer({ home });
});

after(async () => {
  if (skip) return;
  await server.close();
  removeHome(home);
  rmSync(user, { recursive: true, force: true });
});

test('eval "$(aksemu az-env)": the seed commands run with the real az verbatim, and kubectl shows NotReady', { skip }, async () => {
  const out = join(user, 'out');
  const r = await bash(`
    mkdir -p ${out}
    eval "$(aksemu az-env)"
    az group create --location eastus --name myResourceGroup > ${out}/group.json
    az network vnet create -g myResourceGroup -n myVnet --address-prefixes 10.0.0.0/8 --subnet-name nodes --subnet-prefixes 10.240.0.0/16 > ${out}/vnet.json
    az aks create --location eastus --resource-group myResourceGroup --name myAKSCluster --network-plugin none --pod-cidr 10.10.0.0/16 --generate-ssh-keys > ${out}/aks.json
    az aks get-credentials --resource-group myResourceGroup --name myAKSCluster --file ${out}/kubeconfig
    kubectl --kubeconfig ${out}/kubeconfig get nodes > ${out}/nodes.txt
    kubectl --kubeconfig ${out}/kubeconfig get nodes -o json > ${out}/nodes.json
  `);
  assert.equal(r.code, 0, r.stderr);
  const sub = server.identity.subscriptionId;
  const group = JSON.parse(readFileSync(join(out, 'group.json'), 'utf8'));
  assert.equal(group.id, `/subscriptions/${sub}/resourceGroups/myResourceGroup`);
  const vnet = JSON.parse(readFileSync(join(out, 'vnet.json'), 'utf8'));
  assert.equal(vnet.newVNet.subnets[0].addressPrefix, '10.240.0.0/16');
  const aks = JSON.parse(readFileSync(join(out, 'aks.json'), 'utf8'));
  assert.equal(aks.provisioningState, 'Succeeded');
  assert.equal(aks.networkProfile.networkPlugin, 'none');
  // az 2.45 sends the pod CIDR; at its api-version (2022-11-01) AKS does not return it for BYO CNI
  // (docs/aks-rules.md §1.2: returned from 2026-01-01 on).
  assert.equal(aks.networkProfile.podCidr, null);
  const table = readFileSync(join(out, 'nodes.txt'), 'utf8');
  assert.match(table, /^NAME\s+STATUS\s+ROLES/);
  assert.equal(
    table
      .trim()
      .split('\n')
      .slice(1)
      .filter((l) => /\sNotReady\s+agent\s/.test(l)).length,
    3,
    table,
  );
  const nodes = JSON.parse(readFileSync(join(out, 'nodes.json'), 'utf8'));
  for (const node of nodes.items) {
    const ready = node.status.conditions.find((c: { type: string }) => c.type === 'Ready');
    assert.equal(ready.status, 'False');
    assert.match(ready.message, /cni plugin not initialized/);
  }
  // az's profile lives under the aksemu home, never in the user's ~/.azure.
  assert.equal(existsSync(join(user, '.azure')), false);
  assert.ok(existsSync(join(home, 'azure', 'azureProfile.json')));
});

test('aksemu az-env prints the exports, again after a restart of az-env, and --unset undoes them', { skip }, async () => {
  const r = await bash(
    'PYTHONPATH=/opt/mine aksemu az-env; echo ---; PYTHONPATH=/opt/mine:$(aksemu az-env | sed -n "s/^export PYTHONPATH=//p" | cut -d: -f1) aksemu az-env --unset',
  );
  assert.equal(r.code, 0, r.stderr);
  const [set, unset] = r.stdout.split('---\n');
  assert.match(set!, new RegExp(`^export AZURE_CONFIG_DIR=${join(home, 'azure')}$`, 'm'));
  assert.match(set!, new RegExp(`^export REQUESTS_CA_BUNDLE=${server.caFile}$`, 'm'));
  assert.match(set!, new RegExp(`^export PYTHONPATH=${join(REPO, 'tools', 'az-shim')}:/opt/mine$`, 'm'));
  assert.equal(unset, 'unset AZURE_CONFIG_DIR REQUESTS_CA_BUNDLE\nexport PYTHONPATH=/opt/mine\n');
});

test('aksemu az-env and sdk-env without a running server: one line, exit 1', async () => {
  const nobody = tempHome();
  try {
    for (const cmd of ['az-env', 'sdk-env']) {
      const r = await aksemu(nobody, [cmd]);
      assert.equal(r.code, 1);
      assert.equal(r.stdout, '');
      assert.equal(r.stderr, `aksemu: no aksemu server is running for ${nobody} (start one with: aksemu start)\n`);
    }
  } finally {
    removeHome(nobody);
  }
});

test('eval "$(aksemu sdk-env)": @azure/identity credentials and the ARM clients work with nothing else set', { skip }, async () => {
  // The documented snippet (docs/clients.md §4.4), run as a user's own script.
  const script = `
    import { ClientSecretCredential, EnvironmentCredential } from '@azure/identity';
    import { ResourceManagementClient } from '@azure/arm-resources';
    import { ContainerServiceClient } from '@azure/arm-containerservice';
    const env = process.env;
    const endpoint = env.AZURE_RESOURCE_MANAGER_ENDPOINT;
    const secret = new ClientSecretCredential(env.AZURE_TENANT_ID, env.AZURE_CLIENT_ID, env.AZURE_CLIENT_SECRET, { authorityHost: env.AZURE_AUTHORITY_HOST });
    const groups = new ResourceManagementClient(secret, env.AZURE_SUBSCRIPTION_ID, { endpoint });
    const created = await groups.resourceGroups.createOrUpdate('sdkGroup', { location: 'eastus' });
    const fromEnv = new ResourceManagementClient(new EnvironmentCredential(), env.AZURE_SUBSCRIPTION_ID, { endpoint });
    const names = [];
    for await (const g of fromEnv.resourceGroups.list()) names.push(g.name);
    const aks = new ContainerServiceClient(new EnvironmentCredential(), env.AZURE_SUBSCRIPTION_ID, { endpoint, apiVersion: '2026-04-01' });
    const cluster = await aks.managedClusters.beginCreateOrUpdateAndWait('sdkGroup', 'c1', {
      location: 'eastus', dnsPrefix: 'c1', identity: { type: 'SystemAssigned' },
      agentPoolProfiles: [{ name: 'nodepool1', count: 1, vmSize: 'Standard_DS2_v2', mode: 'System' }],
      networkProfile: { networkPlugin: 'none', podCidr: '10.10.0.0/16' },
    }, { updateIntervalInMs: 100 });
    console.log(JSON.stringify({ id: created.id, names, state: cluster.provisioningState, podCidr: cluster.networkProfile.podCidr }));
  `;
  const r = await bash(`eval "$(aksemu sdk-env)"\nnode --input-type=module <<'JS'\n${script}\nJS`);
  assert.equal(r.code, 0, r.stderr);
  const result = JSON.parse(r.stdout.trim().split('\n').pop()!);
  assert.equal(result.id, `/subscriptions/${server.identity.subscriptionId}/resourceGroups/sdkGroup`);
  assert.ok(result.names.includes('sdkGroup'));
  assert.equal(result.state, 'Succeeded');
  assert.equal(result.podCidr, '10.10.0.0/16');
});
