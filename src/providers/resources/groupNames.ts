// ARM's resource group name rules: 1–90 letters, digits, '_', '(', ')', '-', '.'; not ending in '.'.
// "Letter" and "digit" are Unicode's, as in ARM (names like 'grüße' are valid).
import { invalidResourceGroupCharacters, invalidResourceGroupName } from '../../arm/errors.js';

const ALLOWED = /[\p{L}\p{N}_().-]/u;

export function validateResourceGroupName(name: string): void {
  // ARM lists every offending character, repeats included, in order.
  const invalid = [...name].filter((ch) => !ALLOWED.test(ch)).join('');
  if (invalid !== '') throw invalidResourceGroupCharacters(name, invalid);
  const length = [...name].length;
  if (length < 1 || length > 90) throw invalidResourceGroupName(name, 'it must be 1 to 90 characters long.');
  if (name.endsWith('.')) throw invalidResourceGroupName(name, "it cannot end with a period ('.').");
}
