// Golden tests of the template functions against the examples of Microsoft's function reference
// (learn.microsoft.com/azure/azure-resource-manager/templates/template-functions-*): each page's
// examples are data (our own transcription of the example templates, with the values the page's
// output tables document), run here through the engine — planDeployment validates the template as
// ARM does before deploying, runPlan evaluates its outputs — and, one example per page, deployed
// with `aksemu az deployment group create` against a real server (deploy.e2e.test.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ArmError } from '../../../src/arm/errors.js';
import type { DeploymentScope } from '../../../src/templates/context.js';
import { planDeployment, runPlan, type ResourceDeployer } from '../../../src/templates/engine.js';

export const SUB = '00000000-0000-0000-0000-000000000000';

/** The resource group the reference's examples name (examplegroup), in aksemu's default subscription. */
export const GROUP = { id: `/subscriptions/${SUB}/resourceGroups/examplegroup`, name: 'examplegroup', location: 'southcentralus' };

export const SCOPE: DeploymentScope = {
  subscriptionId: SUB,
  tenantId: '72f988bf-86f1-41af-91ab-2d7cd011db47',
  subscriptionName: 'aksemu',
  resourceGroup: GROUP,
  deploymentName: 'functions',
  baseUrl: 'https://127.0.0.1:8443',
};

/** An expected output: the documented value, or a pattern where the value differs per deployment (utcNow, newGuid). */
export type Expected = unknown | RegExp;

export interface Example {
  /** Which example of the page (its function and what it shows). */
  name: string;
  template: Record<string, unknown>;
  /** Parameter values given to the deployment, {name: value}. */
  parameters?: Record<string, unknown>;
  outputs: Record<string, Expected>;
}

export interface Page {
  /** The page's public address. */
  url: string;
  examples: Example[];
  /** Expressions the template refuses at validation (as a variable), with the sentence ARM's error carries. */
  invalid?: Array<[expression: string, sentence: string | RegExp]>;
}

/** The example's template as the reference writes it: schema and content version around the sections. */
export function template(sections: Record<string, unknown>): Record<string, unknown> {
  return {
    $schema: 'https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#',
    contentVersion: '1.0.0.0',
    resources: [],
    ...sections,
  };
}

/** Outputs of type `type` whose values are the given expressions. */
export function outputs(type: string, values: Record<string, string>): Record<string, { type: string; value: string }> {
  return Object.fromEntries(Object.entries(values).map(([name, value]) => [name, { type, value }]));
}

const NO_RESOURCES: ResourceDeployer = {
  put: () => assert.fail('the reference examples deploy no resources'),
  get: () => assert.fail('the reference examples read no resources'),
  post: () => assert.fail('the reference examples call no actions'),
  defaultApiVersion: () => assert.fail('the reference examples read no resources'),
};

/** Validates and runs the template through the engine; its outputs' values, or the ARM error it ends in. */
export function deployOutputs(example: Pick<Example, 'template' | 'parameters'>, scope = SCOPE): Record<string, unknown> {
  const parameters = Object.fromEntries(Object.entries(example.parameters ?? {}).map(([k, value]) => [k, { value }]));
  const plan = planDeployment({ template: example.template, parameters, scope });
  const result = runPlan(plan, NO_RESOURCES);
  if (!result.ok) throw result.error;
  return Object.fromEntries(Object.entries(result.outputs).map(([k, v]) => [k, v.value]));
}

/** Compares a value with the documented one: a pattern matches a scalar's text, anything else compares deeply. */
export function assertMatches(actual: unknown, expected: Expected, at: string): void {
  if (expected instanceof RegExp) assert.match(String(actual), expected, at);
  else if (Array.isArray(expected)) {
    assert.ok(Array.isArray(actual) && actual.length === expected.length, `${at}: ${JSON.stringify(actual)} is not ${JSON.stringify(expected)}`);
    expected.forEach((e, i) => assertMatches((actual as unknown[])[i], e, `${at}[${i}]`));
  } else if (typeof expected === 'object' && expected !== null) {
    assert.ok(typeof actual === 'object' && actual !== null && !Array.isArray(actual), `${at}: ${JSON.stringify(actual)} is not an object`);
    assert.deepEqual(Object.keys(actual).sort(), Object.keys(expected).sort(), `${at}: members`);
    for (const [k, e] of Object.entries(expected)) assertMatches((actual as Record<string, unknown>)[k], e, `${at}.${k}`);
  } else assert.deepEqual(actual, expected, at);
}

/** Compares outputs with the documented values. */
export function assertOutputs(actual: Record<string, unknown>, expected: Record<string, Expected>): void {
  assertMatches(actual, expected, 'outputs');
}

/** One test per example of the page, and one per expression it refuses. */
export function runPage(page: Page): void {
  for (const example of page.examples) {
    test(example.name, () => assertOutputs(deployOutputs(example), example.outputs));
  }
  for (const [expression, sentence] of page.invalid ?? []) {
    test(`refused: ${expression}`, () => assertInvalidVariable(expression, sentence));
  }
}

/** The ARM error a template ends in: its code and (detail) message. */
export function armErrorOf(example: Pick<Example, 'template' | 'parameters'>): { code: string; message: string } {
  try {
    deployOutputs(example);
  } catch (err) {
    if (!(err instanceof ArmError)) throw err;
    const detail = err.details?.[0];
    return { code: err.code, message: detail?.message ?? err.message };
  }
  return assert.fail('the template deployed');
}

/** The template has one output `value` of `type` = expression; the error its deployment ends in. */
export function outputError(expression: string, type = 'string'): { code: string; message: string } {
  return armErrorOf({ template: template({ outputs: { value: { type, value: expression } } }) });
}

/** The value of one expression as an output of type `type`. */
export function outputValue(expression: string, type = 'string'): unknown {
  return deployOutputs({ template: template({ outputs: { value: { type, value: expression } } }) })['value'];
}

/**
 * A variable `v` = expression is checked when the template is validated, before anything deploys:
 * the InvalidTemplate error ARM answers, with the function's sentence inside.
 */
export function assertInvalidVariable(expression: string, sentence: string | RegExp): void {
  const error = armErrorOf({ template: template({ variables: { v: expression } }) });
  assert.equal(error.code, 'InvalidTemplate');
  const prefix = "Deployment template validation failed: 'The template variable 'v' is not valid: ";
  assert.ok(error.message.startsWith(prefix), error.message);
  if (typeof sentence === 'string') assert.ok(error.message.includes(sentence), `${error.message}\n does not say\n${sentence}`);
  else assert.match(error.message, sentence);
}
