// ARM's rules for the names in a request path, checked on the decoded segments before a handler
// builds a store key from them. A subscription id is a GUID; a resource group name follows ARM's
// group rules; every other name is free text without the characters ARM refuses in resource names
// ('/' among them). So no name can reach another record's key, however it was percent-encoded.
import { invalidResourceGroupCharacters, invalidResourceGroupName, invalidResourceName, invalidSubscriptionId } from './errors.js';

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The RPC's list (resource-api-reference.md), plus '#' (ARM's naming rules) and every control character. */
const REFUSED_IN_NAMES = /[<>%&:\\?/#\p{Cc}]/u;
const MAX_NAME_LENGTH = 260;

/**
 * ARM's resource group name rules: 1–90 letters, digits, '_', '(', ')', '-', '.'; not ending in '.'.
 * "Letter" and "digit" are Unicode's, as in ARM (names like 'grüße' are valid).
 */
const GROUP_NAME_CHARACTER = /[\p{L}\p{N}_().-]/u;

export function validateResourceGroupName(name: string): void {
  // ARM lists every offending character, repeats included, in order.
  const invalid = [...name].filter((ch) => !GROUP_NAME_CHARACTER.test(ch)).join('');
  if (invalid !== '') throw invalidResourceGroupCharacters(name, invalid);
  const length = [...name].length;
  if (length < 1 || length > 90) throw invalidResourceGroupName(name, 'it must be 1 to 90 characters long.');
  if (name.endsWith('.')) throw invalidResourceGroupName(name, "it cannot end with a period ('.').");
}

export function validateResourceName(name: string): void {
  if (REFUSED_IN_NAMES.test(name) || [...name].length > MAX_NAME_LENGTH) throw invalidResourceName(name);
}

/** Every parameter a route bound from the path, by what it names. */
export function validatePathNames(params: Readonly<Record<string, string>>): void {
  for (const [param, value] of Object.entries(params)) {
    if (param === 'subscriptionId') {
      if (!GUID.test(value)) throw invalidSubscriptionId(value);
    } else if (param === 'resourceGroupName') {
      validateResourceGroupName(value);
    } else {
      validateResourceName(value);
    }
  }
}
