// Azure's region pairs, for the locations Network gives a Microsoft.Storage service endpoint: by default an
// endpoint covers the VNet's region, and Storage's also the paired region, for regional failover (Microsoft Learn,
// "Configure virtual network service endpoints"). Pairs from Microsoft Learn, "Azure cross-region replication
// pairings for all geographies"; a few pairs are one-way (westus3 pairs with eastus, whose pair is westus).
// Regions without a pair (italynorth, polandcentral, …) are absent: their endpoints cover their own region.
const PAIRS: Readonly<Record<string, string>> = {
  eastus: 'westus',
  westus: 'eastus',
  eastus2: 'centralus',
  centralus: 'eastus2',
  northcentralus: 'southcentralus',
  southcentralus: 'northcentralus',
  westus2: 'westcentralus',
  westcentralus: 'westus2',
  westus3: 'eastus',
  canadacentral: 'canadaeast',
  canadaeast: 'canadacentral',
  brazilsouth: 'southcentralus',
  brazilsoutheast: 'brazilsouth',
  northeurope: 'westeurope',
  westeurope: 'northeurope',
  uksouth: 'ukwest',
  ukwest: 'uksouth',
  francecentral: 'francesouth',
  francesouth: 'francecentral',
  germanywestcentral: 'germanynorth',
  germanynorth: 'germanywestcentral',
  norwayeast: 'norwaywest',
  norwaywest: 'norwayeast',
  switzerlandnorth: 'switzerlandwest',
  switzerlandwest: 'switzerlandnorth',
  swedencentral: 'swedensouth',
  uaenorth: 'uaecentral',
  uaecentral: 'uaenorth',
  southafricanorth: 'southafricawest',
  southafricawest: 'southafricanorth',
  australiaeast: 'australiasoutheast',
  australiasoutheast: 'australiaeast',
  australiacentral: 'australiacentral2',
  australiacentral2: 'australiacentral',
  centralindia: 'southindia',
  southindia: 'centralindia',
  westindia: 'southindia',
  jioindiawest: 'jioindiacentral',
  jioindiacentral: 'jioindiawest',
  eastasia: 'southeastasia',
  southeastasia: 'eastasia',
  japaneast: 'japanwest',
  japanwest: 'japaneast',
  koreacentral: 'koreasouth',
  koreasouth: 'koreacentral',
  chinanorth: 'chinaeast',
  chinaeast: 'chinanorth',
  chinanorth2: 'chinaeast2',
  chinaeast2: 'chinanorth2',
  chinanorth3: 'chinaeast3',
  chinaeast3: 'chinanorth3',
};

/** Services whose endpoints Network extends to the paired region. */
const PAIRED_SERVICES = new Set(['microsoft.storage']);

/** The locations Network fills in for a service endpoint the client sent without them. */
export function serviceEndpointLocations(service: string, region: string): string[] {
  const pair = PAIRED_SERVICES.has(service.toLowerCase()) ? PAIRS[region] : undefined;
  return pair ? [region, pair] : [region];
}
