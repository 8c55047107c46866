// endpoint.json in the home dir: how clients find a running server (URL, CA, credentials) and the
// az commands that point the real Azure CLI at it (docs/clients.md §1.2).
import { chmodSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Identity } from '../arm/identity.js';
import { authorityUrl } from '../arm/authority.js';
import { ARM_RESOURCE_ID, CLOUD_NAME } from '../arm/metadata.js';

export interface EndpointInfo {
  url: string;
  pid: number;
  resourceManager: string;
  activeDirectory: string;
  activeDirectoryResourceId: string;
  tokenEndpoint: string;
  metadataEndpoint: string;
  caFile: string;
  tenantId: string;
  subscriptionId: string;
  clientId: string;
  clientSecret: string;
  /** A one-time login link to the dashboard (docs/dashboard.md §2); `aksemu dashboard` makes another. */
  dashboardUrl: string;
  az: {
    env: Record<string, string>;
    cloudRegister: string;
    cloudSet: string;
    login: string;
  };
}

function endpointFilePath(home: string): string {
  return join(home, 'endpoint.json');
}

export function endpointInfo(url: string, caFile: string, identity: Identity, dashboardUrl: string): EndpointInfo {
  const activeDirectory = authorityUrl(url);
  return {
    url,
    pid: process.pid,
    resourceManager: `${url}/`,
    activeDirectory,
    activeDirectoryResourceId: ARM_RESOURCE_ID,
    tokenEndpoint: `${activeDirectory}/oauth2/token`,
    metadataEndpoint: `${url}/metadata/endpoints?api-version=2015-01-01`,
    caFile,
    tenantId: identity.tenantId,
    subscriptionId: identity.subscriptionId,
    clientId: identity.clientId,
    clientSecret: identity.clientSecret,
    dashboardUrl,
    az: {
      env: { REQUESTS_CA_BUNDLE: caFile },
      cloudRegister:
        `az cloud register -n ${CLOUD_NAME} --endpoint-resource-manager ${url}/ --endpoint-active-directory ${activeDirectory}` +
        ` --endpoint-active-directory-resource-id ${ARM_RESOURCE_ID} --endpoint-active-directory-graph-resource-id ${url}/graph/`,
      cloudSet: `az cloud set -n ${CLOUD_NAME}`,
      login: `az login --service-principal -u ${identity.clientId} --password=${identity.clientSecret} --tenant ${identity.tenantId}`,
    },
  };
}

/** Written 0600: it holds the client secret. */
export function writeEndpointFile(home: string, info: EndpointInfo): string {
  const path = endpointFilePath(home);
  writeFileSync(path, `${JSON.stringify(info, null, 2)}\n`, { mode: 0o600 });
  chmodSync(path, 0o600); // mode applies only when the file is created
  return path;
}

function readEndpointFile(home: string): EndpointInfo | undefined {
  try {
    return JSON.parse(readFileSync(endpointFilePath(home), 'utf8')) as EndpointInfo;
  } catch {
    return undefined;
  }
}

export function removeEndpointFile(home: string): void {
  rmSync(endpointFilePath(home), { force: true });
}

/** A server from another process still serving this home, if any. */
export function otherLiveServer(home: string): EndpointInfo | undefined {
  const info = readEndpointFile(home);
  if (!info || info.pid === process.pid) return undefined;
  try {
    process.kill(info.pid, 0);
    return info;
  } catch {
    return undefined;
  }
}
