// ARM's template limits, and aksemu's own where ARM documents none, so that no template, expression
// or stored deployment can take more than a few MB or about a second — and the errors ARM words when
// one is exceeded ("The number of template resources limit exceeded. Limit: '800' and actual: …").
import { ArmError, invalidTemplate } from '../arm/errors.js';

const MiB = 1024 * 1024;

export const LIMITS = {
  // https://learn.microsoft.com/azure/azure-resource-manager/templates/best-practices#template-limits
  // (the job-size page still says 256 variables; the limits page now says 512: accept what ARM accepts)
  parameters: 256,
  variables: 512,
  resources: 800,
  outputs: 64,
  /** A request (template and parameters) and the template once expanded: "4 MB". */
  templateBytes: 4 * MiB,
  /** Each resource definition once expanded: "1 MB". */
  resourceBytes: 1 * MiB,
  // https://learn.microsoft.com/azure/azure-resource-manager/templates/template-expressions
  expressionLength: 24_576,
  // https://learn.microsoft.com/azure/azure-resource-manager/templates/copy-resources#copy-limits
  // (the same 800 for property, variable and output copies)
  copyCount: 800,
  // https://learn.microsoft.com/azure/azure-resource-manager/templates/template-functions-array#range
  rangeCount: 10_000,
  rangeEnd: 2_147_483_647,
  // aksemu's own, where ARM documents none:
  /** One value (a function's result, a variable, an output) as JSON characters: no more than a template. */
  valueSize: 4 * MiB,
  /** Every output of a deployment together, as JSON characters. */
  outputsSize: 4 * MiB,
  /** Nesting of JSON text (the reader, as Newtonsoft's MaxDepth), and of evaluated values. */
  jsonDepth: 128,
  valueDepth: 256,
  /** Nesting of one expression's calls and indexes, and of evaluation across variables. */
  expressionNesting: 256,
  evaluationDepth: 500,
  /** Work units one deployment may spend evaluating (about a second; see budget.ts), and its time. */
  evaluationWork: 8_000_000,
  evaluationMs: 1000,
  /** Nesting of a Bicep expression (parentheses, objects, arrays, operators, interpolation). */
  bicepNesting: 256,
  /** Bicep files one compilation reads (the file, its modules and imports), each file's size, and module nesting. */
  bicepFiles: 128,
  bicepFileBytes: 1 * MiB,
  bicepModuleDepth: 16,
  /** Nested deployments one deployment may start, at every depth together, and the time all of them may take. */
  nestedDeployments: 100,
  deploymentTreeMs: 30_000,
  /** Bytes of deployments one page of a list returns before it hands out a nextLink. */
  listPageBytes: 8 * MiB,
} as const;

/** ARM's sentence for a limit: "The {what} limit exceeded. Limit: '{limit}' and actual: '{actual}'." */
export function limitExceeded(what: string, limit: number, actual?: number): string {
  return `The ${what} limit exceeded. Limit: '${limit}'${actual === undefined ? '' : ` and actual: '${actual}'`}.`;
}

/** (aksemu) A function whose result would be larger than a value may be, in JSON characters. */
export function resultTooLarge(functionName: string, actual: number): string {
  return limitExceeded(`template language function '${functionName}' result size`, LIMITS.valueSize, actual);
}

/** Too many parameters, variables, resources or outputs: InvalidTemplate at the template's start, as ARM reports it. */
export function templateCountExceeded(section: 'parameters' | 'variables' | 'resources' | 'outputs', actual: number): ArmError {
  const sentence = `${limitExceeded(`number of template ${section}`, LIMITS[section], actual)} Please see https://aka.ms/arm-template/#${section} for usage details.`;
  return invalidTemplate(sentence, { lineNumber: 0, linePosition: 0, path: '' });
}

/** ARM's sentence for a copy count that is not an integer from 0 to 800. */
export function copyCountSentence(line: number, column: number): string {
  return `The template 'copy' definition at line '${line}' and column '${column}' has an invalid copy count. The copy count must be a positive integer value and cannot exceed '${LIMITS.copyCount}'. Please see https://aka.ms/arm-copy for usage details.`;
}

/** The copy count, or undefined when ARM refuses it. */
export function validCopyCount(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= LIMITS.copyCount ? value : undefined;
}

/** A request larger than ARM takes (its front door answers 413 before reading it). */
export function requestContentTooLarge(): ArmError {
  return new ArmError(413, 'RequestContentTooLarge', 'The request content size exceeds the maximum size of 4 MB.');
}
