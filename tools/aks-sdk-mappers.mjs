// Reads one api-version's managedClusters/agentPools models from a published @azure/arm-containerservice
// package (autorest's model mappers, one api-version per package) into the shape tools/gen-aks-api-versions.mjs
// writes from a spec: for the versions whose spec files could not be had here. A package is the unpacked
// `npm pack @azure/arm-containerservice@<version>` (its package/ folder).
//
// What a package carries and what it loses against the spec:
// - kept: wire names (serializedName; autorest's flattening of "properties.x" undone), readOnly and required
//   (the mapper's, and the typings' `readonly` and `?` for model-typed members, where the mapper says nothing),
//   the spec's defaults (defaultValue; the prose ones from the typings' doc comments), constraints, enum values
//   (fixed enums in the mapper; modelAsString ones through the Known<Name> enums the typings name), operations'
//   paths, methods, bodies and long-running flags;
// - lost: integer vs number (both "Number"), formats other than date-time/uuid/byte/duration, x-ms-mutability,
//   x-ms-secret, the name of a flattened container (ManagedCluster.properties and AgentPool.properties are
//   named as the spec names them, others "<Model>Properties"), response codes (the SDK adds its own to
//   long-running operations), and a default stated only in a spec title (the doc comments carry descriptions).

import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { defaultNote } from './aks-default-note.mjs';

/** The spec's names for the definitions autorest flattened into these models. */
export const CONTAINERS = {
  ManagedCluster: { properties: 'ManagedClusterProperties' },
  AgentPool: { properties: 'ManagedClusterAgentPoolProfileProperties' },
};
const FORMATS = {
  DateTime: 'date-time',
  DateTimeRfc1123: 'date-time-rfc1123',
  Date: 'date',
  Uuid: 'uuid',
  ByteArray: 'byte',
  Base64Url: 'base64url',
  TimeSpan: 'duration',
  UnixTime: 'unixtime',
};
// Mapper constraint names → the spec keywords the spec reader writes.
const CONSTRAINTS = {
  InclusiveMinimum: 'minimum',
  InclusiveMaximum: 'maximum',
  ExclusiveMinimum: 'exclusiveMinimum',
  ExclusiveMaximum: 'exclusiveMaximum',
  MultipleOf: 'multipleOf',
  MinLength: 'minLength',
  MaxLength: 'maxLength',
  MinItems: 'minItems',
  MaxItems: 'maxItems',
  UniqueItems: 'uniqueItems',
};

/** The models folder of either layout: dist-esm/src (up to v21) or dist/esm (v21.6 on). */
function layout(pkg) {
  for (const base of [join(pkg, 'dist-esm', 'src'), join(pkg, 'dist', 'esm')]) {
    if (existsSync(join(base, 'models', 'mappers.js'))) return base;
  }
  throw new Error(`${pkg}: no models/mappers.js (an autorest-generated @azure/arm-containerservice is needed)`);
}

/**
 * interface name → { extends: [...], props: { clientName → { text, readOnly, required } } } from the models'
 * typings, which say `readonly` and required (no `?`) also where the mapper does not (on model-typed members).
 */
export function typings(text) {
  const out = {};
  const re = /^export (?:declare )?interface (\w+)(?: extends ([\w, ]+))? \{\n([\s\S]*?)^\}/gm;
  for (const m of text.matchAll(re)) {
    const props = {};
    // A member's doc comment (never reaching past its own end) and then the member.
    const member = /(?:^\s+\/\*\*((?:(?!\*\/)[\s\S])*)\*\/\n)?^\s+(readonly )?(\w+)(\?)?: ([^;]+);/gm;
    for (const p of m[3].matchAll(member)) {
      const doc = p[1]?.replace(/^\s*\* ?/gm, '').replace(/\\\//g, '/');
      props[p[3]] = { text: p[5].trim(), readOnly: p[2] !== undefined, required: p[4] === undefined, doc };
    }
    out[m[1]] = { extends: m[2] ? m[2].split(',').map((s) => s.trim()) : [], props };
  }
  return out;
}

function splitWire(serializedName) {
  // autorest escapes a literal dot as "\\."; an unescaped one is flattening.
  return serializedName.split(/(?<!\\)\./).map((s) => s.replace(/\\\./g, '.'));
}

class SdkReader {
  constructor(mappers, known, types) {
    this.mappers = mappers;
    this.known = known;
    this.types = types;
    this.definitions = {};
  }

  /** The typings' entry of a client property, searched up the interface's extends chain. */
  typeOf(className, clientName) {
    const seen = new Set();
    const stack = [className];
    while (stack.length > 0) {
      const name = stack.pop();
      if (seen.has(name) || !this.types[name]) continue;
      seen.add(name);
      const t = this.types[name].props[clientName];
      if (t !== undefined) return t;
      stack.push(...this.types[name].extends);
    }
    return undefined;
  }

  definition(className) {
    if (!Object.hasOwn(this.definitions, className)) {
      this.definitions[className] = null; // a model that reaches itself stops here
      const mapper = this.mappers[className];
      if (!mapper) throw new Error(`no mapper ${className}`);
      this.definitions[className] = this.composite(className, mapper.type);
    }
    return className;
  }

  /** A Composite mapper as a definition; flattened members are put back into their containers. */
  composite(className, type) {
    const root = { properties: {}, required: new Set() };
    const containers = new Map(); // container path → node
    for (const [clientName, prop] of Object.entries(type.modelProperties ?? {})) {
      const path = splitWire(prop.serializedName ?? clientName);
      let node = root;
      for (let i = 0; i < path.length - 1; i++) {
        const at = path.slice(0, i + 1).join('.');
        if (!containers.has(at)) {
          const name =
            (i === 0 && CONTAINERS[className]?.[path[0]]) ||
            `${className}${path
              .slice(0, i + 1)
              .map(cap)
              .join('')}`;
          const child = { name, properties: {}, required: new Set() };
          containers.set(at, child);
          node.properties[path[i]] = { ref: name };
        }
        node = containers.get(at);
      }
      const wire = path[path.length - 1];
      const typed = this.typeOf(className, clientName);
      node.properties[wire] = this.member(prop, typed?.text);
      if (typed?.readOnly) node.properties[wire].readOnly = true;
      const note = defaultNote(typed?.doc);
      if (note !== undefined) node.properties[wire].defaultNote = note;
      if (prop.required || typed?.required) node.required.add(wire);
    }
    for (const c of containers.values()) {
      // A container the package also has as a model of its own is that model; otherwise it is made here.
      if (this.mappers[c.name]) this.definition(c.name);
      else this.definitions[c.name] = finish(c);
    }
    const out = finish(root);
    if (type.additionalProperties) out.additionalProperties = this.member(type.additionalProperties, undefined);
    return out;
  }

  member(prop, typeText) {
    const t = prop.type;
    const out = {};
    switch (t.name) {
      case 'Composite':
        out.ref = this.definition(t.className);
        break;
      case 'Sequence':
        out.type = 'array';
        out.items = this.member(t.element, elementText(typeText));
        break;
      case 'Dictionary':
        out.type = 'object';
        out.additionalProperties = this.member(t.value, undefined);
        break;
      case 'Enum':
        out.type = 'string';
        out.enum = { values: [...t.allowedValues], modelAsString: false };
        if (typeText && /^\w+$/.test(typeText)) out.enum.name = typeText;
        break;
      case 'String': {
        out.type = 'string';
        const known = typeText && this.known[`Known${typeText}`];
        if (known) out.enum = { name: typeText, values: Object.values(known), modelAsString: true };
        break;
      }
      case 'Number':
        // Python models tell integers from decimals (tools/aks-python-models.py); autorest's JS mappers do not.
        out.type = prop.integer ? 'integer' : 'number';
        break;
      case 'Boolean':
        out.type = 'boolean';
        break;
      case 'Object':
      case 'any': // autorest's name for a schema of type object with no members
        out.type = 'object';
        break;
      default:
        if (!FORMATS[t.name]) throw new Error(`mapper type ${t.name} is not known here`);
        out.type = 'string';
        out.format = FORMATS[t.name];
    }
    for (const [k, v] of Object.entries(prop.constraints ?? {})) {
      if (k === 'Pattern') out.pattern = v.source;
      else if (CONSTRAINTS[k]) out[CONSTRAINTS[k]] = v;
    }
    if (prop.defaultValue !== undefined) out.default = prop.defaultValue;
    if (prop.readOnly) out.readOnly = true;
    if (prop.nullable) out.nullable = true;
    return out;
  }
}

export function cap(s) {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

function elementText(typeText) {
  const m = typeText && /^(\w+)\[\]$/.exec(typeText);
  return m ? m[1] : undefined;
}

export function finish(node) {
  const out = { properties: node.properties };
  if (node.required.size > 0) out.required = [...node.required].sort();
  return out;
}

/** parametersN → model name, from models/parameters.js. */
function bodyParameters(text) {
  const out = {};
  for (const m of text.matchAll(/^export const (\w+) = \{\n([\s\S]*?)^\};/gm)) {
    const mapper = /mapper: (\w+?)Mapper\b/.exec(m[2]);
    if (mapper) out[m[1]] = mapper[1];
  }
  return out;
}

/** The operations of every operations/<group>.js: path, method, id, body, pageable and long-running flags. */
function operations(base) {
  const bodies = bodyParameters(readFileSync(join(base, 'models', 'parameters.js'), 'utf8'));
  const ops = [];
  for (const file of readdirSync(join(base, 'operations')).filter((f) => f.endsWith('.js') && f !== 'index.js')) {
    const text = readFileSync(join(base, 'operations', file), 'utf8');
    const group = /^export class (\w+)Impl\b/m.exec(text)?.[1];
    if (!group) continue;
    for (const m of text.matchAll(/^const (\w+)OperationSpec = \{\n([\s\S]*?)^\};/gm)) {
      const name = m[1];
      if (name.endsWith('Next')) continue; // the paging continuation of a list
      const spec = m[2];
      const entry = {
        path: /path: "([^"]+)"/.exec(spec)[1],
        method: /httpMethod: "(\w+)"/.exec(spec)[1].toLowerCase(),
        operationId: `${group}_${cap(name)}`,
      };
      const body = /requestBody: Parameters\.(\w+),/.exec(spec);
      if (body && bodies[body[1]]) entry.body = bodies[body[1]];
      const begin = new RegExp(`^    (?:async )?begin${cap(name)}\\(([\\s\\S]*?)^    }`, 'm').exec(text);
      if (begin) {
        entry.longRunning = true;
        const finalState = /resourceLocationConfig: "([^"]+)"/.exec(begin[1]);
        if (finalState) entry.finalStateVia = finalState[1];
      }
      if (new RegExp(`^    _${name}\\(`, 'm').test(text)) entry.pageable = true;
      ops.push(entry);
    }
  }
  return ops;
}

/** One version, read from an unpacked package: { apiVersion, kind, sdk, definitions, operations }. */
export async function readSdkVersion(pkg, roots) {
  const base = layout(pkg);
  const client = readFileSync(join(base, 'containerServiceClient.js'), 'utf8');
  const apiVersion = /this\.apiVersion = options\.apiVersion \|\| "([^"]+)"/.exec(client)?.[1];
  if (!apiVersion) throw new Error(`${pkg}: no default api-version in containerServiceClient.js`);
  const mappers = await import(pathToFileURL(join(base, 'models', 'mappers.js')).href);
  const known = await import(pathToFileURL(join(base, 'models', 'index.js')).href);
  const reader = new SdkReader(mappers, known, typings(readFileSync(join(base, 'models', 'index.d.ts'), 'utf8')));
  for (const root of roots) reader.definition(root);
  return versionEntry(pkg, apiVersion, reader.definitions, operations(base));
}

/** A version read from a package, in the generator's shape: { apiVersion, kind, sdk, definitions, operations }. */
export function versionEntry(pkg, apiVersion, definitions, ops) {
  const meta = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8'));
  const kind = apiVersion.endsWith('-preview') ? 'preview' : 'stable';
  return { apiVersion, kind, sdk: `${meta.name}@${meta.version}`, definitions, operations: ops };
}

/**
 * The versions of tools/aks-python-models.py's output (Python models written as mappers), in the generator's shape.
 * A root a version does not have yet (agentPools came in 2019-02-01) is left out.
 */
export function readPythonModels(file, roots) {
  const dump = JSON.parse(readFileSync(file, 'utf8'));
  return Object.entries(dump.versions).map(([apiVersion, { mappers, known, typings: types }]) => {
    const reader = new SdkReader(mappers, known, types);
    for (const root of roots) if (mappers[root] || Object.hasOwn(reader.definitions, root)) reader.definition(root);
    const kind = apiVersion.endsWith('-preview') ? 'preview' : 'stable';
    return { apiVersion, kind, sdk: dump.package, definitions: reader.definitions, operations: [] };
  });
}
