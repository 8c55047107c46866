// The real Azure CLI (Debian azure-cli 2.45, /usr/bin/az) against a running aksemu, following the
// recipe in shared/spec/az-cli-compat.md §0: a throwaway AZURE_CONFIG_DIR with versionCheck.json,
// REQUESTS_CA_BUNDLE, a dead proxy as guard rail, the import shim, an /adfs authority, SP login.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { removeHome, startTestServer, tempHome, type TestServer } from '../e2e/harness.js';
import { az as aksemuAz } from './helpers.js';

const AZ = '/usr/bin/az';
// dist/test/az/ → the repo; CI clones it with shared/ as a sibling folder.
const REPO = resolve(fileURLToPath(new URL('../../../', import.meta.url)));
const PYSHIM = join(REPO, '..', 'shared', 'tools', 'az-pyshim');
const skip = existsSync(AZ) ? false : `${AZ} is not installed`;

let server: TestServer;
let home: string;
let azHome: string;
let env: NodeJS.ProcessEnv;

function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(AZ, args, { env, timeout: 120_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? ((err as { code: number }).code) : 1) : 0;
      done({ code, stdout, stderr });
    });
  });
}

before(async () => {
  if (skip) return;
  home = tempHome();
  server = await startTestServer({ home });
  azHome = tempHome();
  const config = join(azHome, '.azure');
  mkdirSync(config, { recursive: true });
  // Without it the first az run in a fresh config dir phones home (spec §5).
  writeFileSync(join(config, 'versionCheck.json'), JSON.stringify({
    versions: { 'azure-cli': { local: '2.45.0' }, core: { local: '2.45.0' }, telemetry: { local: '1.0.8' } },
    update_time: '2099-01-01 00:00:00.000000',
  }));
  env = {
    PATH: process.env['PATH'] ?? '/usr/bin:/bin',
    HOME: azHome,
    AZURE_CONFIG_DIR: config,
    REQUESTS_CA_BUNDLE: server.caFile,
    NO_PROXY: '127.0.0.1,localhost',
    no_proxy: '127.0.0.1,localhost',
    // Nothing listens on port 9: anything that tries to leave the machine fails fast.
    HTTPS_PROXY: 'http://127.0.0.1:9',
    HTTP_PROXY: 'http://127.0.0.1:9',
    AZURE_CORE_COLLECT_TELEMETRY: 'false',
    AZURE_CORE_ERROR_RECOMMENDATION: 'off',
    AZURE_CORE_SURVEY_MESSAGE: 'false',
    AZURE_EXTENSION_USE_DYNAMIC_INSTALL: 'no',
    PYTHONPATH: PYSHIM,
  };
  const url = server.url;
  const steps = [
    ['cloud', 'register', '-n', 'aksemu', '--endpoint-resource-manager', `${url}/`, '--endpoint-active-directory', `${url}/adfs`,
      '--endpoint-active-directory-resource-id', 'https://management.core.windows.net/', '--endpoint-active-directory-graph-resource-id', `${url}/graph/`],
    ['cloud', 'set', '-n', 'aksemu'],
    ['login', '--service-principal', '-u', server.identity.clientId, '-p', server.identity.clientSecret, '--tenant', server.identity.tenantId],
  ];
  for (const step of steps) {
    const r = await run(step);
    assert.equal(r.code, 0, `az ${step.slice(0, 2).join(' ')} failed: ${r.stderr}`);
  }
});

after(async () => {
  if (skip) return;
  await server.close();
  removeHome(home);
  removeHome(azHome);
});

test('real az: group create --location eastus --name myResourceGroup', { skip }, async () => {
  const r = await run(['group', 'create', '--location', 'eastus', '--name', 'myResourceGroup']);
  assert.equal(r.code, 0, r.stderr);
  const group = JSON.parse(r.stdout);
  assert.equal(group.id, `/subscriptions/${server.identity.subscriptionId}/resourceGroups/myResourceGroup`);
  assert.equal(group.location, 'eastus');
  assert.equal(group.properties.provisioningState, 'Succeeded');
  // aksemu az prints what az prints, byte for byte.
  const ours = await aksemuAz(home, ['group', 'show', '--name', 'myResourceGroup']);
  assert.equal(ours.stdout, r.stdout);
});

test('real az and aksemu az agree on table, tsv and the not-found error', { skip }, async () => {
  for (const args of [['group', 'list', '-o', 'table'], ['group', 'list', '-o', 'tsv'], ['group', 'show', '-n', 'nope'], ['group', 'exists', '-n', 'myResourceGroup']]) {
    const real = await run(args);
    const ours = await aksemuAz(home, args);
    assert.equal(ours.stdout, real.stdout, args.join(' '));
    assert.equal(ours.stderr, real.stderr, args.join(' '));
    assert.equal(ours.code, real.code, args.join(' '));
  }
});

test('real az: aks create --network-plugin none (needs the server\'s Microsoft.ContainerService)', { skip }, async (t) => {
  const probe = await aksemuAz(home, ['aks', 'list']);
  if (probe.code !== 0) {
    t.skip(`server has no managedClusters yet: ${probe.stderr.split('\n')[0]}`);
    return;
  }
  const r = await run(['aks', 'create', '--location', 'eastus', '--resource-group', 'myResourceGroup', '--name', 'myAKSCluster', '--network-plugin', 'none', '--generate-ssh-keys']);
  assert.equal(r.code, 0, r.stderr);
  const cluster = JSON.parse(r.stdout);
  assert.equal(cluster.networkProfile.networkPlugin, 'none');
  assert.equal(cluster.provisioningState, 'Succeeded');
});
