// GET /metadata/endpoints: how az (`cloud register` with only the ARM URL, or ARM_CLOUD_METADATA_URL)
// and the SDKs discover the login endpoint and token audience. api-version 2015-01-01 answers one
// object; 2019-05-01 and later answer a list of clouds (docs/clients.md §1.3).
import { ARM_AUDIENCES } from './auth.js';
import { authorityUrl } from './authority.js';

export const CLOUD_NAME = 'aksemu';

/** The token audience az should ask for; the first of ARM's. */
export const ARM_RESOURCE_ID = ARM_AUDIENCES[0]!;

function authentication(baseUrl: string) {
  return {
    loginEndpoint: authorityUrl(baseUrl),
    audiences: [ARM_RESOURCE_ID, 'https://management.azure.com/'],
    tenant: 'adfs',
    identityProvider: 'ADFS',
  };
}

export function metadataEndpoints(baseUrl: string, apiVersion: string): unknown {
  if (apiVersion < '2019-05-01') {
    return {
      galleryEndpoint: `${baseUrl}/gallery/`,
      graphEndpoint: `${baseUrl}/graph/`,
      graphAudience: `${baseUrl}/graph/`,
      portalEndpoint: `${baseUrl}/portal/`,
      authentication: authentication(baseUrl),
    };
  }
  return [
    {
      name: CLOUD_NAME,
      resourceManager: `${baseUrl}/`,
      authentication: authentication(baseUrl),
      graph: `${baseUrl}/graph/`,
      graphAudience: `${baseUrl}/graph/`,
      microsoftGraphResourceId: `${baseUrl}/msgraph/`,
      gallery: `${baseUrl}/gallery/`,
      portal: `${baseUrl}/portal/`,
      suffixes: {
        storage: 'core.aksemu.local',
        keyVaultDns: 'vault.aksemu.local',
        acrLoginServer: 'azurecr.aksemu.local',
        sqlServerHostname: 'database.aksemu.local',
      },
    },
  ];
}
