// The real az (Debian 2.45, through the repository's shim) with user-assigned identities (docs/aks-rules.md §13):
// `az identity create` (2022-01-31-preview), then `az aks create --assign-identity --assign-kubelet-identity`, which
// reads both identities at 2018-11-30 and grants the control-plane identity Managed Identity Operator on the kubelet
// one; `az aks show --query identity` and `--query identityProfile` answer with the identities' own ids.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { arm } from '../arm/helpers.js';
import { AZ, runRealAz } from './real-az-env.js';
import { type RealAzSession, realAzSession } from './real-az-session.js';

const MANAGED_IDENTITY_OPERATOR = 'f1a07417-d97a-45cb-824c-7a7467783830';
const skip = existsSync(AZ) ? false : `${AZ} is not installed`;

let session: RealAzSession;

before(async () => {
  if (!skip) session = await realAzSession('idRG');
});

after(async () => {
  if (!skip) await session.close();
});

async function az(args: string[]): Promise<any> {
  const r = await runRealAz(session.env, [...args, '-o', 'json']);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
}

test('real az: az identity create, then a cluster with a user-assigned control-plane and kubelet identity', { skip }, async () => {
  const control = await az(['identity', 'create', '-g', 'idRG', '-n', 'aks-control']);
  const kubelet = await az(['identity', 'create', '-g', 'idRG', '-n', 'aks-kubelet']);
  assert.equal(control.type, 'Microsoft.ManagedIdentity/userAssignedIdentities');
  assert.match(control.principalId, /^[0-9a-f-]{36}$/);
  assert.match(control.clientId, /^[0-9a-f-]{36}$/);
  assert.deepEqual((await az(['identity', 'show', '-g', 'idRG', '-n', 'aks-control'])).principalId, control.principalId);
  assert.deepEqual((await az(['identity', 'list', '-g', 'idRG'])).map((i: { name: string }) => i.name).sort(), ['aks-control', 'aks-kubelet']);

  const create = await runRealAz(session.env, [
    ...'aks create -g idRG -n uami --network-plugin azure --node-count 1 --generate-ssh-keys'.split(' '),
    '--assign-identity',
    control.id,
    '--assign-kubelet-identity',
    kubelet.id,
    '-o',
    'none',
  ]);
  assert.equal(create.code, 0, create.stderr);

  const identity = await az(['aks', 'show', '-g', 'idRG', '-n', 'uami', '--query', 'identity']);
  assert.equal(identity.type, 'UserAssigned');
  const [[key, value]] = Object.entries(identity.userAssignedIdentities) as [[string, { principalId: string; clientId: string }]];
  assert.equal(key.toLowerCase(), control.id.toLowerCase());
  assert.equal(value.principalId, control.principalId);
  assert.equal(value.clientId, control.clientId);

  const profile = await az(['aks', 'show', '-g', 'idRG', '-n', 'uami', '--query', 'identityProfile']);
  assert.equal(profile.kubeletidentity.resourceId.toLowerCase(), kubelet.id.toLowerCase());
  assert.equal(profile.kubeletidentity.clientId, kubelet.clientId);
  assert.equal(profile.kubeletidentity.objectId, kubelet.principalId);

  // az granted the control-plane identity Managed Identity Operator on the kubelet identity.
  // (Read over ARM: az's role listing asks Microsoft Graph for names, which the test cloud has no endpoint for.)
  const roles = await arm(session.server, 'GET', `${kubelet.id}/providers/Microsoft.Authorization/roleAssignments?api-version=2022-04-01`);
  assert.equal(roles.status, 200, JSON.stringify(roles.body));
  assert.ok(
    roles.body.value.some(
      (r: { properties: { roleDefinitionId: string; principalId: string } }) =>
        r.properties.roleDefinitionId.endsWith(MANAGED_IDENTITY_OPERATOR) && r.properties.principalId === control.principalId,
    ),
    JSON.stringify(roles.body),
  );
});

test('real az: --assign-kubelet-identity without --assign-identity is refused (az checks it before sending)', { skip }, async () => {
  const kubelet = await az(['identity', 'create', '-g', 'idRG', '-n', 'lonely-kubelet']);
  const r = await runRealAz(session.env, [
    ...'aks create -g idRG -n lonely --node-count 1 --generate-ssh-keys --assign-kubelet-identity'.split(' '),
    kubelet.id,
    '-o',
    'none',
  ]);
  assert.notEqual(r.code, 0);
  assert.match(r.stderr, /--assign-kubelet-identity can only be specified when --assign-identity is specified/);
});
