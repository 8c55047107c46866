// Every template function by lower-case name.
import { arrayFunctions } from './arrays.js';
import { cidrFunctions } from './cidr.js';
import { dateFunctions } from './dates.js';
import { lambdaFunctions } from './lambdas.js';
import { hashFunctions } from './hash.js';
import { logicFunctions } from './logic.js';
import { listFunction, scopeFunctions } from './scope.js';
import { stringFunctions } from './strings.js';
import type { TemplateFunction } from './types.js';

const TABLE = new Map<string, TemplateFunction>(
  Object.entries({
    ...stringFunctions,
    ...arrayFunctions,
    ...logicFunctions,
    ...hashFunctions,
    ...scopeFunctions,
    ...dateFunctions,
    ...cidrFunctions,
    ...lambdaFunctions,
  }),
);

export function lookupFunction(name: string): TemplateFunction | undefined {
  const key = name.toLowerCase();
  return TABLE.get(key) ?? (/^list/.test(key) ? listFunction(name) : undefined);
}
