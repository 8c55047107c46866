// Every page of the template function reference, with its examples.
import type { Page } from '../harness.js';
import { ARRAY_PAGE } from './array.js';
import { CIDR_PAGE } from './cidr.js';
import { COMPARISON_PAGE } from './comparison.js';
import { DATE_PAGE } from './date.js';
import { DEPLOYMENT_PAGE } from './deployment.js';
import { LAMBDA_PAGE } from './lambda.js';
import { LOGICAL_PAGE } from './logical.js';
import { NUMERIC_PAGE } from './numeric.js';
import { OBJECT_PAGE } from './object.js';
import { RESOURCE_PAGE } from './resource.js';
import { SCOPE_PAGE } from './scope.js';
import { STRING_PAGE } from './string.js';

export const PAGES: Record<string, Page> = {
  array: ARRAY_PAGE,
  cidr: CIDR_PAGE,
  comparison: COMPARISON_PAGE,
  date: DATE_PAGE,
  deployment: DEPLOYMENT_PAGE,
  lambda: LAMBDA_PAGE,
  logical: LOGICAL_PAGE,
  numeric: NUMERIC_PAGE,
  object: OBJECT_PAGE,
  resource: RESOURCE_PAGE,
  scope: SCOPE_PAGE,
  string: STRING_PAGE,
};
