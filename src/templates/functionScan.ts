// Validation's search for functions the template language does not have: every expression of the
// template — parameter defaults, variables, resources (their children and the inner templates of
// nested deployments, each with its own user-defined functions), outputs and the user-defined
// functions themselves — is parsed and each call looked up, before anything deploys, so a misspelt
// function in an output no longer surfaces only after the resources were created. The error is
// ARM's InvalidTemplate, placed as evaluation would place it (the variable, resource or output).
import { invalidTemplate, templateSentences } from '../arm/errors.js';
import { someCall } from './expression/evaluate.js';
import { lookupFunction } from './functions/index.js';
import { isObject } from './functions/types.js';
import { memberKey } from './members.js';
import { symbolicNames } from './template.js';
import { violationAt } from './violations.js';

/** The first call in `value`'s expressions (object keys included) that is neither a template function nor one of `own`. */
function unknownCall(value: unknown, own: ReadonlySet<string>): string | undefined {
  let unknown: string | undefined;
  someCall(
    value,
    (call) => {
      if (lookupFunction(call.name) || own.has(call.name.toLowerCase())) return false;
      unknown = call.name;
      return true;
    },
    true,
  );
  return unknown;
}

/** The lower-case "namespace.name" of each user-defined function a raw template declares. */
function ownFunctions(template: Record<string, unknown>): Set<string> {
  const out = new Set<string>();
  const key = memberKey(template, 'functions');
  const declared = key === undefined ? undefined : template[key];
  if (!Array.isArray(declared)) return out;
  for (const ns of declared) {
    if (isObject(ns) && typeof ns['namespace'] === 'string' && isObject(ns['members'])) {
      for (const name of Object.keys(ns['members'])) out.add(`${ns['namespace']}.${name}`.toLowerCase());
    }
  }
  return out;
}

function member(target: Record<string, unknown>, name: string): unknown {
  const key = memberKey(target, name);
  return key === undefined ? undefined : target[key];
}

/** The inner template of an inner-scope nested deployment, when the resource is one. */
function innerTemplate(resource: Record<string, unknown>): Record<string, unknown> | undefined {
  if (String(member(resource, 'type')).toLowerCase() !== 'microsoft.resources/deployments') return undefined;
  const props = member(resource, 'properties');
  if (!isObject(props)) return undefined;
  const options = member(props, 'expressionEvaluationOptions');
  const scope = isObject(options) ? member(options, 'scope') : undefined;
  const template = member(props, 'template');
  return typeof scope === 'string' && scope.toLowerCase() === 'inner' && isObject(template) ? template : undefined;
}

/** Throws ARM's InvalidTemplate for the first unknown function of the template (and its inner templates). */
export function checkFunctions(template: unknown, path = 'properties.template'): void {
  if (!isObject(template)) return;
  const own = ownFunctions(template);
  const unknown = (name: string) => templateSentences.functionNotValid(name);
  const section = (name: string): Record<string, unknown> | undefined => {
    const v = member(template, name);
    return isObject(v) ? v : undefined;
  };
  for (const [name, p] of Object.entries(section('parameters') ?? {})) {
    const found = isObject(p) ? unknownCall(member(p, 'defaultValue'), own) : undefined;
    if (found) {
      const v = violationAt(p, `${path}.parameters.${name}`);
      throw invalidTemplate(`The template parameter '${name}' at line '${v?.lineNumber}' and column '${v?.linePosition}' is not valid: ${unknown(found)}`, v);
    }
  }
  const functions = member(template, 'functions');
  const inFunctions = unknownCall(functions, own);
  if (inFunctions) throw invalidTemplate(`The template 'functions' are not valid: ${unknown(inFunctions)}`, violationAt(functions, `${path}.functions`));
  for (const [name, v] of Object.entries(section('variables') ?? {})) {
    const found = unknownCall(v, own);
    if (found) throw invalidTemplate(templateSentences.variableNotValid(name, unknown(found)), violationAt(v, `${path}.variables.${name}`));
  }
  const resources = member(template, 'resources');
  const visit = (r: unknown, at: string): void => {
    if (!isObject(r)) return;
    const inner = innerTemplate(r);
    // The resource's own expressions: its children are visited below, and an inner template is a
    // template of its own, with its own functions.
    let own_ = withoutMember(r, 'resources');
    if (inner) own_ = { ...withoutMember(own_, 'properties'), properties: withoutTemplate(member(r, 'properties')) };
    const bad = unknownCall(own_, own);
    if (bad) {
      const v = violationAt(r, at);
      const name = symbolicNames.get(r) ?? String(member(r, 'name'));
      throw invalidTemplate(templateSentences.resourceNotValid(name, v?.lineNumber ?? 0, v?.linePosition ?? 0, unknown(bad)), v);
    }
    if (inner) checkFunctions(inner, `${at}.properties.template`);
    const children = member(r, 'resources');
    if (Array.isArray(children)) children.forEach((c, i) => visit(c, `${at}.resources[${i}]`));
  };
  if (Array.isArray(resources)) resources.forEach((r, i) => visit(r, `${path}.resources[${i}]`));
  else if (isObject(resources)) for (const [symbol, r] of Object.entries(resources)) visit(r, `${path}.resources.${symbol}`);
  for (const [name, o] of Object.entries(section('outputs') ?? {})) {
    const found = unknownCall(o, own);
    if (found) throw invalidTemplate(templateSentences.outputNotValid(name, unknown(found)), violationAt(o, `${path}.outputs.${name}`));
  }
}

function withoutMember(target: Record<string, unknown>, name: string): Record<string, unknown> {
  const key = memberKey(target, name);
  return Object.fromEntries(Object.entries(target).filter(([k]) => k !== key));
}

function withoutTemplate(props: unknown): unknown {
  return isObject(props) ? withoutMember(props, 'template') : props;
}
