// Azure regions a resource may be placed in: the public cloud's physical regions plus Azure China's,
// because the seed documents use both (eastus, chinanorth3). ARM accepts a name or a display name
// ("East US") and stores the name.

interface Region {
  name: string;
  displayName: string;
  /** As az account list-locations shows it: (US) East US. */
  regionalDisplayName: string;
}

const TABLE: ReadonlyArray<readonly [name: string, displayName: string, geography: string]> = [
  ['eastus', 'East US', 'US'],
  ['eastus2', 'East US 2', 'US'],
  ['southcentralus', 'South Central US', 'US'],
  ['westus2', 'West US 2', 'US'],
  ['westus3', 'West US 3', 'US'],
  ['australiaeast', 'Australia East', 'Asia Pacific'],
  ['southeastasia', 'Southeast Asia', 'Asia Pacific'],
  ['northeurope', 'North Europe', 'Europe'],
  ['swedencentral', 'Sweden Central', 'Europe'],
  ['uksouth', 'UK South', 'Europe'],
  ['westeurope', 'West Europe', 'Europe'],
  ['centralus', 'Central US', 'US'],
  ['southafricanorth', 'South Africa North', 'Africa'],
  ['centralindia', 'Central India', 'Asia Pacific'],
  ['eastasia', 'East Asia', 'Asia Pacific'],
  ['japaneast', 'Japan East', 'Asia Pacific'],
  ['koreacentral', 'Korea Central', 'Asia Pacific'],
  ['newzealandnorth', 'New Zealand North', 'Asia Pacific'],
  ['canadacentral', 'Canada Central', 'Canada'],
  ['francecentral', 'France Central', 'Europe'],
  ['germanywestcentral', 'Germany West Central', 'Europe'],
  ['italynorth', 'Italy North', 'Europe'],
  ['norwayeast', 'Norway East', 'Europe'],
  ['polandcentral', 'Poland Central', 'Europe'],
  ['spaincentral', 'Spain Central', 'Europe'],
  ['switzerlandnorth', 'Switzerland North', 'Europe'],
  ['mexicocentral', 'Mexico Central', 'Mexico'],
  ['uaenorth', 'UAE North', 'Middle East'],
  ['brazilsouth', 'Brazil South', 'South America'],
  ['israelcentral', 'Israel Central', 'Middle East'],
  ['qatarcentral', 'Qatar Central', 'Middle East'],
  ['northcentralus', 'North Central US', 'US'],
  ['westus', 'West US', 'US'],
  ['japanwest', 'Japan West', 'Asia Pacific'],
  ['jioindiawest', 'Jio India West', 'Asia Pacific'],
  ['westcentralus', 'West Central US', 'US'],
  ['southafricawest', 'South Africa West', 'Africa'],
  ['australiacentral', 'Australia Central', 'Asia Pacific'],
  ['australiacentral2', 'Australia Central 2', 'Asia Pacific'],
  ['australiasoutheast', 'Australia Southeast', 'Asia Pacific'],
  ['jioindiacentral', 'Jio India Central', 'Asia Pacific'],
  ['koreasouth', 'Korea South', 'Asia Pacific'],
  ['southindia', 'South India', 'Asia Pacific'],
  ['westindia', 'West India', 'Asia Pacific'],
  ['canadaeast', 'Canada East', 'Canada'],
  ['francesouth', 'France South', 'Europe'],
  ['germanynorth', 'Germany North', 'Europe'],
  ['norwaywest', 'Norway West', 'Europe'],
  ['switzerlandwest', 'Switzerland West', 'Europe'],
  ['ukwest', 'UK West', 'Europe'],
  ['uaecentral', 'UAE Central', 'Middle East'],
  ['brazilsoutheast', 'Brazil Southeast', 'South America'],
  ['chinaeast', 'China East', 'China'],
  ['chinaeast2', 'China East 2', 'China'],
  ['chinaeast3', 'China East 3', 'China'],
  ['chinanorth', 'China North', 'China'],
  ['chinanorth2', 'China North 2', 'China'],
  ['chinanorth3', 'China North 3', 'China'],
];

export const REGIONS: readonly Region[] = TABLE.map(([name, displayName, geography]) => ({
  name,
  displayName,
  regionalDisplayName: `(${geography}) ${displayName}`,
}));

const BY_KEY = new Map(REGIONS.map((r) => [r.name, r]));

/** ARM's stored form of a location: "East US" -> eastus. */
export function normalizeLocation(location: string): string {
  return location.replace(/\s+/g, '').toLowerCase();
}

/** The region a location string names (eastus, EastUS, "East US"), or undefined. */
export function findRegion(location: string): Region | undefined {
  return BY_KEY.get(normalizeLocation(location));
}
