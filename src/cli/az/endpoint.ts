// Finding the running server: endpoint.json in the aksemu home (--home, $AKSEMU_HOME, ~/.aksemu).
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { EndpointInfo } from '../../server/endpointFile.js';
import { AzCliError } from './errors.js';

export type Endpoint = Pick<
  EndpointInfo,
  'url' | 'caFile' | 'tenantId' | 'subscriptionId' | 'clientId' | 'clientSecret' | 'tokenEndpoint' | 'activeDirectoryResourceId'
>;

export function resolveHome(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  return flag || env['AKSEMU_HOME'] || join(homedir(), '.aksemu');
}

export function readEndpoint(home: string): Endpoint {
  const file = join(home, 'endpoint.json');
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    // az's wording when there is no login, plus how to get one here.
    throw new AzCliError(`No aksemu server found: ${file} does not exist. Run 'aksemu start' (or pass --home / set AKSEMU_HOME).`);
  }
  const info = JSON.parse(text) as Endpoint;
  for (const key of ['url', 'caFile', 'subscriptionId', 'clientId', 'clientSecret', 'tokenEndpoint'] as const) {
    if (typeof info[key] !== 'string') throw new AzCliError(`${file} is missing "${key}"`);
  }
  return info;
}
