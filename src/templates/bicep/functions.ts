// The functions a Bicep file may call (Bicep's sys and az namespaces), and those Bicep bans in favour of
// an operator: a call to anything else is Bicep's BCP057 (or BCP069 for a banned one) at compile time.

const SYS = `array base64 base64ToJson base64ToString bool buildUri cidrHost cidrSubnet concat contains dataUri dataUriToString
dateTimeAdd dateTimeFromEpoch dateTimeToEpoch distinct empty endsWith fail filter first flatten format groupBy guid indexOf int
intersection items join json last lastIndexOf length like loadDirectoryFileInfo loadFileAsBase64 loadJsonContent loadTextContent
loadYamlContent map mapValues max min newGuid objectKeys padLeft parseCidr parseUri range readEnvironmentVariable reduce replace
shallowMerge skip sort split startsWith string substring take toLower toObject toUpper trim union uniqueString uri uriComponent
uriComponentToString utcNow any nameof`;

const AZ = `deployer deployment environment extensionResourceId managementGroup managementGroupResourceId pickZones providers
reference resourceGroup resourceId roleDefinitions subscription subscriptionResourceId tenant tenantResourceId toLogicalZone
toLogicalZones toPhysicalZone toPhysicalZones`;

export const BICEP_FUNCTIONS = new Set([...SYS.split(/\s+/), ...AZ.split(/\s+/)]);

/** ARM functions Bicep refuses, with the operator to use instead. */
export const OPERATOR_FUNCTIONS: Record<string, string> = {
  add: '+',
  sub: '-',
  mul: '*',
  div: '/',
  mod: '%',
  less: '<',
  lessOrEquals: '<=',
  greater: '>',
  greaterOrEquals: '>=',
  equals: '==',
  not: '!',
  and: '&&',
  or: '||',
  coalesce: '??',
};

/** `list*` resource functions (listKeys, listSecrets…) are az functions too. */
export function isBicepFunction(name: string): boolean {
  return BICEP_FUNCTIONS.has(name) || /^list[A-Z]/.test(name) || name === 'list';
}
