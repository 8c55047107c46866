// Reads one api-version's managedClusters/agentPools models from a MODULAR (TypeSpec-generated)
// @azure/arm-containerservice package (v25 on), which carries no autorest mappers, into the shape
// tools/gen-aks-api-versions.mjs writes from a spec. A package is the unpacked
// `npm pack @azure/arm-containerservice@<version>` (its package/ folder); the files read are its
// dist/esm/models/models.js and models.d.ts and dist/esm/api/<group>/operations.js.
//
// How the wire is read: every model has a `<model>Serializer` (what a request writes) and/or a
// `<model>Deserializer` (what a response is read from), each one object literal mapping wire names to client
// names (`wire: item["client"]` / `client: item["wire"]`). A member is on the wire if either function has it;
// a member the typings mark `readonly`, or that the model's serializer leaves out while its deserializer reads
// it, is readOnly. Nested definitions are the (de)serializers a member calls (`xArraySerializer` for arrays,
// `xRecordSerializer` for maps, `_xPropertiesSerializer(item)` for a flattened `properties` container). Types,
// required (no `?`), enums (the Known<Name> enums of the typings) and prose defaults (doc comments) come from
// models.d.ts; date formats from the conversions the functions apply.
//
// What a modular package loses against the spec (more than the autorest packages): schema `default`s (only the
// prose ones in doc comments remain), every constraint (pattern, minimum/maximum, lengths), integer vs number,
// x-ms-mutability and x-ms-secret, nullable, the response codes and `deprecated`; enum names are the package's
// type names (e.g. `Ossku` for the spec's OSSKU); finalStateVia is what the package's poller is configured with
// (it names one for every long-running operation, where the autorest packages named it only for POSTs).

import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { defaultNote } from './aks-default-note.mjs';
import { CONTAINERS, cap, finish, typings, versionEntry } from './aks-sdk-mappers.mjs';

/** The modular layout: models in one models.js, operations in api/<group>/operations.js. */
export function isModularPackage(pkg) {
  return existsSync(join(pkg, 'dist', 'esm', 'models', 'models.js')) && existsSync(join(pkg, 'dist', 'esm', 'api'));
}

/** The text between the `{` at `open` and its matching `}`, strings skipped. */
function balanced(text, open) {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const c = text[i];
    if (c === '"' || c === "'" || c === '`') {
      i = text.indexOf(c, i + 1);
      continue;
    }
    if (c === '{' || c === '(' || c === '[') depth++;
    else if (c === '}' || c === ')' || c === ']') {
      depth--;
      if (depth === 0) return text.slice(open + 1, i);
    }
  }
  throw new Error(`unbalanced object literal at ${open}`);
}

/** The top-level entries of an object literal's inside, split at commas of depth 0. */
function entries(inside) {
  const out = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < inside.length; i++) {
    const c = inside[i];
    if (c === '"' || c === "'" || c === '`') i = inside.indexOf(c, i + 1);
    else if (c === '{' || c === '(' || c === '[') depth++;
    else if (c === '}' || c === ')' || c === ']') depth--;
    else if (c === ',' && depth === 0) {
      out.push(inside.slice(start, i).trim());
      start = i + 1;
    }
  }
  out.push(inside.slice(start).trim());
  return out.filter((e) => e !== '');
}

/** function name → the object literal it returns, for every exported function of models.js. */
function functionBodies(text) {
  const out = {};
  for (const m of text.matchAll(/^export function (\w+)\((\w+)\) \{\n([\s\S]*?)^\}/gm)) {
    const at = m[3].indexOf('return {');
    out[m[1]] = at < 0 ? undefined : entries(balanced(m[3], at + 'return '.length));
  }
  return out;
}

/** One entry of a (de)serializer: { wire, client, call, text } (call: the (de)serializer it hands the value to). */
function readEntry(entry, side) {
  const call = /\b(_?\w+?(?:Serializer|Deserializer))\(/.exec(entry.replace(/areAllPropsUndefined\(/g, ''))?.[1];
  const spread = /^\.\.\.\(!item\["([^"]+)"\]/.exec(entry);
  if (spread) return { wire: spread[1], client: undefined, call, flatten: true, text: entry };
  const m = /^(?:"([^"]+)"|(\w+)):\s*([\s\S]*)$/.exec(entry);
  if (!m) throw new Error(`cannot read (de)serializer entry: ${entry}`);
  const key = m[1] ?? m[2];
  const item = /item\["([^"]+)"\]/.exec(m[3])?.[1];
  if (side === 'ser') return { wire: key, client: item, call, flatten: item === undefined && call?.startsWith('_'), text: m[3] };
  return { wire: item, client: key, call, text: m[3] };
}

/** The typings' declarations: interfaces, type aliases, Known enums, and what each (de)serializer takes or gives. */
function declarations(dts) {
  const aliases = {};
  for (const m of dts.matchAll(/^export type (\w+) = ([^;]+);/gm)) aliases[m[1]] = m[2].trim();
  const known = {};
  for (const m of dts.matchAll(/^export declare enum Known(\w+) \{\n([\s\S]*?)^\}/gm)) {
    known[m[1]] = [...m[2].matchAll(/^\s+\w+ = ("(?:[^"\\]|\\.)*"|-?[\d.]+),?$/gm)].map((v) => JSON.parse(v[1]));
  }
  // fn → { model, shape: 'model' | 'array' | 'record' }
  const fns = {};
  for (const m of dts.matchAll(/^export declare function (\w+)\((?:_?item|result): ([^)]*)\): ([^;{]+|\{)/gm)) {
    const [, fn, param, ret] = m;
    const typed = fn.endsWith('Deserializer') && ret.trim() !== 'any' && ret.trim() !== 'any[]' ? ret.trim() : param.trim();
    let model = /^Array<(\w+)>$/.exec(typed)?.[1];
    let shape = 'array';
    if (!model) {
      model = /^Record<string, (\w+)>$/.exec(typed)?.[1] ?? /^Record<string, (\w+)>$/.exec(param.trim())?.[1];
      shape = 'record';
    }
    if (!model) {
      model = /^(\w+)$/.exec(param.trim()) && param.trim() !== 'any' ? param.trim() : /^(\w+)$/.exec(ret.trim())?.[1];
      shape = 'model';
    }
    fns[fn] = { model, shape };
  }
  return { interfaces: typings(dts), aliases, known, fns };
}

class ModularReader {
  constructor(bodies, decl) {
    this.bodies = bodies;
    this.decl = decl;
    this.definitions = {};
    // model → its serializer and deserializer names
    this.byModel = {};
    for (const [fn, { model, shape }] of Object.entries(decl.fns)) {
      // `_x(De)Serializer(item: Outer)` flattens a container; `_X` models are anonymous (inline in the spec).
      if (shape !== 'model' || !model || (fn.startsWith('_') && !model.startsWith('_'))) continue;
      const side = fn.endsWith('Deserializer') ? 'deser' : 'ser';
      this.byModel[model] ??= {};
      this.byModel[model][side] = fn;
    }
  }

  /** The typings' entry of a client property, searched up the interface's extends chain. */
  typeOf(model, client) {
    const stack = [model];
    const seen = new Set();
    while (stack.length > 0) {
      const name = stack.pop();
      const t = this.decl.interfaces[name];
      if (!t || seen.has(name)) continue;
      seen.add(name);
      if (t.props[client]) return t.props[client];
      stack.push(...t.extends);
    }
    return undefined;
  }

  definition(model) {
    if (!Object.hasOwn(this.definitions, model)) {
      this.definitions[model] = null; // a model that reaches itself stops here
      const fns = this.byModel[model];
      if (!fns) throw new Error(`no (de)serializer for model ${model}`);
      this.definitions[model] = this.build(model, model, fns.ser, fns.deser);
    }
    return model;
  }

  /** A definition from a serializer/deserializer pair; `typesFrom` is the interface holding the client members. */
  build(model, typesFrom, ser, deser) {
    const node = { properties: {}, required: new Set() };
    const read = (fn, side) => {
      if (fn === undefined) return [];
      return (this.bodies[fn] ?? []).map((e) => readEntry(e, side));
    };
    const written = read(ser, 'ser');
    const readBack = read(deser, 'deser');
    const writtenWire = new Set(written.map((e) => e.wire));
    const byWire = new Map();
    for (const e of [...readBack, ...written]) if (!byWire.has(e.wire)) byWire.set(e.wire, e);
    for (const [wire, e] of byWire) {
      if (e.flatten) {
        const name = CONTAINERS[model]?.[wire] ?? `${model}${cap(wire)}`;
        const inner = (side) => (side === 'ser' ? written : readBack).find((x) => x.wire === wire && x.flatten)?.call;
        if (!Object.hasOwn(this.definitions, name)) {
          this.definitions[name] = null;
          this.definitions[name] = this.build(name, typesFrom, inner('ser'), inner('deser'));
        }
        node.properties[wire] = { ref: name };
        continue;
      }
      const client = e.client ?? wire;
      const typed = this.typeOf(typesFrom, client);
      const member = this.member(e, typed?.text);
      if (typed?.readOnly || (ser !== undefined && !writtenWire.has(wire))) member.readOnly = true;
      const note = defaultNote(typed?.doc);
      if (note !== undefined) member.defaultNote = note;
      if (typed?.required) node.required.add(wire);
      node.properties[wire] = member;
    }
    return finish(node);
  }

  /** An anonymous model, written out in the member as the spec writes an inline object. */
  inline(model) {
    const fns = this.byModel[model];
    return { type: 'object', ...this.build(model, model, fns.ser, fns.deser) };
  }

  /** A member's schema from the function it calls (models, arrays and maps of them) or its type text. */
  member(entry, typeText) {
    const called = entry.call && this.decl.fns[entry.call];
    if (called?.model && this.byModel[called.model]) {
      const ref = called.model.startsWith('_') ? this.inline(called.model) : { ref: this.definition(called.model) };
      if (called.shape === 'array') return { type: 'array', items: ref };
      if (called.shape === 'record') return { type: 'object', additionalProperties: ref };
      return ref;
    }
    return this.typed(typeText, entry.text);
  }

  typed(text, code = '') {
    const t = (text ?? 'any').trim();
    const array = /^(\w+)\[\]$/.exec(t) ?? /^Array<(.+)>$/.exec(t);
    if (array) return { type: 'array', items: this.typed(array[1], code) };
    const record = /^Record<string, (.+)>$/.exec(t);
    if (record) return record[1] === 'any' ? { type: 'object' } : { type: 'object', additionalProperties: this.typed(record[1], code) };
    if (this.byModel[t]) return t.startsWith('_') ? this.inline(t) : { ref: this.definition(t) };
    if (t === 'string') return { type: 'string' };
    if (t === 'number') return { type: 'number' };
    if (t === 'boolean') return { type: 'boolean' };
    if (t === 'any' || t === 'unknown') return { type: 'object' };
    if (t === 'Date') return { type: 'string', format: /split\("T"\)\[0\]/.test(code) ? 'date' : 'date-time' };
    if (t === 'Uint8Array') return { type: 'string', format: 'byte' };
    const literals = [...t.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => JSON.parse(`"${m[1]}"`));
    if (literals.length > 0 && t.split('|').every((p) => /^\s*"/.test(p))) {
      return { type: 'string', enum: { values: literals, modelAsString: false } };
    }
    const alias = this.decl.aliases[t];
    if (alias !== undefined) {
      const out = this.typed(alias, code);
      if (out.enum) out.enum.name = t;
      else if (this.decl.known[t]) out.enum = { name: t, values: [...this.decl.known[t]], modelAsString: true };
      return out;
    }
    throw new Error(`type ${t} is not known here`);
  }
}

/** The operations of every api/<group>/operations.js: path, method, id, body, pageable and long-running flags. */
function operations(base, fns) {
  const ops = [];
  const api = join(base, 'api');
  for (const group of readdirSync(api).sort()) {
    const file = join(api, group, 'operations.js');
    if (!existsSync(file)) continue;
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/^export function _(\$?\w+)Send\([^)]*\) \{\n([\s\S]*?)^\}/gm)) {
      const name = m[1].replace(/^\$/, '');
      const entry = {
        path: /expandUrlTemplate\("([^"]+)"/.exec(m[2])[1].replace(/\{\?[^}]*\}$/, ''),
        method: /context\.path\(path\)\.(\w+)\(/.exec(m[2])[1],
        operationId: `${cap(group)}_${cap(name)}`,
      };
      const body = /body: (\w+)\(/.exec(m[2]);
      if (body) entry.body = fns[body[1]]?.model ?? body[1];
      // The public function of the same name: through to its closing `}` line (a signature may span lines).
      const pub = new RegExp(`^export (?:async )?function ${m[1].replace('$', '\\$')}\\(([\\s\\S]*?)^\\}$`, 'm').exec(text);
      if (pub && /getLongRunningPoller\(/.test(pub[1])) {
        entry.longRunning = true;
        const finalState = /resourceLocationConfig: "([^"]+)"/.exec(pub[1]);
        if (finalState) entry.finalStateVia = finalState[1];
      }
      if (pub && /buildPagedAsyncIterator\(/.test(pub[1])) entry.pageable = true;
      ops.push(entry);
    }
  }
  return ops;
}

/** The api-version the package sends when a call names none: the `context.apiVersion ?? "<v>"` fallback. */
function defaultApiVersion(base) {
  const text = readFileSync(join(base, 'api', 'managedClusters', 'operations.js'), 'utf8');
  const found = new Set([...text.matchAll(/context\.apiVersion \?\? "([^"]+)"/g)].map((m) => m[1]));
  if (found.size !== 1) throw new Error(`expected one default api-version, found ${[...found].join(', ') || 'none'}`);
  return [...found][0];
}

/** One version, read from an unpacked modular package: { apiVersion, kind, sdk, definitions, operations }. */
export function readModularVersion(pkg, roots) {
  const base = join(pkg, 'dist', 'esm');
  const apiVersion = defaultApiVersion(base);
  const decl = declarations(readFileSync(join(base, 'models', 'models.d.ts'), 'utf8'));
  const reader = new ModularReader(functionBodies(readFileSync(join(base, 'models', 'models.js'), 'utf8')), decl);
  for (const root of roots) reader.definition(root);
  return versionEntry(pkg, apiVersion, reader.definitions, operations(base, decl.fns));
}
