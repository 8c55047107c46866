// The azure-rest-api-specs examples the suite runs (test/fixtures/aks-spec-examples/README.md says where they
// come from): every example file of every operation in each folder's operations.json, one case per pair.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { thirdPartyFile } from '../third-party.js';

// The copies are not committed (they come from another repository): AKSEMU_SPEC_EXAMPLES names a folder holding
// them, or the copy tool fills this one (gitignored).
export const FIXTURES = process.env.AKSEMU_SPEC_EXAMPLES ?? dirname(dirname(thirdPartyFile('aks-spec-examples', '2022-06-01', 'operations.json')));
/** The example folders, each one api-version of one spec. */
export const FOLDERS = ['2022-06-01', '2024-02-01', 'network/2023-11-01'] as const;

export interface SpecOperation {
  operationId: string;
  method: 'GET' | 'PUT' | 'PATCH' | 'POST' | 'DELETE' | 'HEAD';
  /** The spec's path template, e.g. /subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/… */
  path: string;
  bodyParameter?: string;
  longRunning: boolean;
  examples: string[];
}

export interface Example {
  parameters: Record<string, unknown>;
  responses: Record<string, { body?: unknown } | undefined>;
}

export interface ExampleCase {
  /** folder/operationId/file: the key of the expected-results file. */
  key: string;
  folder: string;
  operation: SpecOperation;
  file: string;
  example: Example;
}

/** Why the suite cannot run here, or undefined when every folder's examples are present. */
export function missingExamples(): string | undefined {
  const absent = FOLDERS.filter((folder) => !existsSync(join(FIXTURES, folder, 'operations.json')));
  if (absent.length === 0) return undefined;
  return `no spec examples in ${FIXTURES} (${absent.join(', ')}): copy them with tools/copy-aks-spec-examples.mjs (test/fixtures/aks-spec-examples/README.md)`;
}

export function loadCases(): ExampleCase[] {
  const cases: ExampleCase[] = [];
  for (const folder of FOLDERS) {
    const dir = join(FIXTURES, folder);
    const operations = JSON.parse(readFileSync(join(dir, 'operations.json'), 'utf8')) as SpecOperation[];
    for (const operation of operations) {
      for (const file of operation.examples) {
        const example = JSON.parse(readFileSync(join(dir, file), 'utf8')) as Example;
        cases.push({ key: `${folder}/${operation.operationId}/${file}`, folder, operation, file, example });
      }
    }
  }
  return cases;
}

/** The example's request path: the template with its parameters filled in (after renames). */
export function requestPath(template: string, parameters: Record<string, unknown>): string {
  return template.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(String(parameters[name] ?? `{${name}}`)));
}

/** The example's response for the final state: 200 where it has one, else 201 (a create's only answer). */
export function expectedBody(example: Example): unknown {
  return example.responses['200']?.body ?? example.responses['201']?.body;
}
