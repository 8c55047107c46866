// A real server on a temp home with the official SDK clients pointed at it, for the Network and
// Authorization tests.
import assert from 'node:assert/strict';
import { NetworkManagementClient } from '@azure/arm-network';
import { ResourceManagementClient } from '@azure/arm-resources';
import { RestError } from '@azure/core-rest-pipeline';
import { ARM_SCOPE, EmulatorCredential, removeHome, startTestServer, tempHome, type TestServer } from '../e2e/harness.js';

export const POLL = { updateIntervalInMs: 10 };

export function clientOptions(server: TestServer) {
  return {
    endpoint: server.url,
    credentialScopes: [ARM_SCOPE],
    tlsOptions: { ca: server.caPem },
    retryOptions: { maxRetries: 0 },
  };
}

export function networkClient(server: TestServer): NetworkManagementClient {
  return new NetworkManagementClient(new EmulatorCredential(server), server.identity.subscriptionId, clientOptions(server));
}

export function resourcesClient(server: TestServer): ResourceManagementClient {
  return new ResourceManagementClient(new EmulatorCredential(server), server.identity.subscriptionId, clientOptions(server));
}

export interface Env {
  server: TestServer;
  home: string;
  network: NetworkManagementClient;
  sub: string;
}

/** Runs fn against a fresh server with resource group `rg` (eastus). */
export async function withServer(fn: (env: Env) => Promise<void>): Promise<void> {
  const home = tempHome();
  const server = await startTestServer({ home });
  const env: Env = { server, home, network: networkClient(server), sub: server.identity.subscriptionId };
  try {
    await resourcesClient(server).resourceGroups.createOrUpdate('rg', { location: 'eastus' });
    await fn(env);
  } finally {
    await env.server.close();
    removeHome(home);
  }
}

/** Restarts env's server on the same home (state kept), replacing env.server and env.network. */
export async function restart(env: Env): Promise<void> {
  await env.server.close();
  env.server = await startTestServer({ home: env.home });
  env.network = networkClient(env.server);
}

/** The error a call fails with. Checked by name: SDKs built on other core versions bring their own RestError class. */
export async function restError(promise: Promise<unknown>): Promise<RestError> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof RestError || (err as Error).name === 'RestError', `expected a RestError, got ${String(err)}`);
    return err as RestError;
  }
  assert.fail('expected the call to fail');
}

export function groupId(env: Env, group = 'rg'): string {
  return `/subscriptions/${env.sub}/resourceGroups/${group}`;
}

export function vnetId(env: Env, name: string, group = 'rg'): string {
  return `${groupId(env, group)}/providers/Microsoft.Network/virtualNetworks/${name}`;
}

/** VNet `v` (10.0.0.0/16) in `rg` with the subnet `nodes` (10.0.0.0/24), what most Network tests start from. */
export async function nodesVnet(env: Env): Promise<void> {
  await env.network.virtualNetworks.beginCreateOrUpdateAndWait(
    'rg',
    'v',
    { location: 'eastus', addressSpace: { addressPrefixes: ['10.0.0.0/16'] }, subnets: [{ name: 'nodes', addressPrefix: '10.0.0.0/24' }] },
    POLL,
  );
}
