#!/usr/bin/env node
// Generates src/aks/api-versions/managed-clusters.json: what each Microsoft.ContainerService api-version's REST
// spec says about managedClusters and agentPools, so aksemu's version knowledge is data read from the specs
// rather than hand-typed tables (issue 14).
//
// Run:
//   node tools/gen-aks-api-versions.mjs [<spec-root>] [--sdk <package-dir>]... [--python-models <file>]...
//        [--merge <generated file>] [--from 2022-06-01] [--out src/aks/api-versions/managed-clusters.json]
//        [--source "<repository>@<commit>"]
// (<spec-root> may be left out with --merge.) A version comes from the first source that has it: spec file,
// Python models, SDK package, merged file.
// <spec-root> is a checkout (or an extract) of azure-rest-api-specs: the folder holding specification/. The
// generator reads every specification/containerservice/resource-manager/Microsoft.ContainerService/aks/
// {stable,preview}/<version>/managedClusters.json from --from on (and the older layout without aks/), and the
// common-types files they $ref. Each --sdk is an unpacked @azure/arm-containerservice package (its package/
// folder); its api-version is added when no spec file of that version is in <spec-root>, read from an
// autorest-generated package (up to v24) through its model mappers (tools/aks-sdk-mappers.mjs), from a modular
// TypeSpec-generated one (v25 on) through its models' serializers/deserializers and typings
// (tools/aks-sdk-modular.mjs). It needs nothing but Node. The output is deterministic (object keys sorted, lists
// in a fixed order), so a second run on the same input gives a byte-identical file (the check, by hand, since
// CI has no spec checkout: copy the file aside, run the same command, `cmp`).
//
// Where the committed data came from:
// - specs: the fork FumingZhang/azure-rest-api-specs at commit de1f3772629b6f4d3ac01548a5f6d719bfb97c9e (a sync
//   of Azure/azure-rest-api-specs main of 2024-06-11; the upstream repository was too large to bring here
//   whole). It holds stable 2022-06-01 … 2024-02-01 and preview 2022-06-02-preview … 2024-04-02-preview;
// - packages: @azure/arm-containerservice 21.1.0 (2024-07-01), 21.2.0-beta.1 (2024-07-02-preview), 21.3.0
//   (2024-09-01), 21.6.0 (2025-02-01), 22.3.0 (2025-07-01), 24.1.0 (2025-10-01), the autorest-generated majors
//   the npm registry had past the specs' last version, and the modular (TypeSpec-generated) 25.3.0
//   (2026-04-01) and 25.5.0 (2026-06-01), the newest of each default api-version v25 has had.
//   Read against the specs where both exist (19.3.0 … 20.0.0 for 2023-07-01 … 2024-02-01, 17.2.0-beta.1 for
//   2022-09-02-preview), the autorest packages give the same members, readOnly, required, defaults, enums and
//   operations; what they cannot give is listed in tools/aks-sdk-mappers.mjs. There is no modular package of a
//   version a spec or mapper package also gives; read against 24.1.0 (2025-10-01), 25.3.0 gives the same
//   members, readOnly, required and enums for every definition both have, apart from what 2026-04-01 changed;
//   what a modular package loses (schema defaults and constraints above all) is listed in
//   tools/aks-sdk-modular.mjs, so a 2026 version's `default`s are absent, not "none". (The 2026-04-01 spec
//   itself, Azure/azure-rest-api-specs aks/stable/2026-04-01/managedClusters.json, read in part: its
//   ContainerServiceNetworkProfile has the 17 members read here and keeps 2025-10-01's defaults, podCidr
//   10.244.0.0/16, serviceCidr 10.0.0.0/16, dnsServiceIP 10.0.0.10, outboundType loadBalancer, none for
//   networkPlugin; AgentPool is a ProxyResource there, with systemData, as read here.)
// The commands:
//   git -C <fork.git> archive de1f3772629b6f4d3ac01548a5f6d719bfb97c9e \
//     specification/containerservice/resource-manager/Microsoft.ContainerService/aks specification/common-types \
//     | tar x -C /tmp/aks-specs
//   for v in 21.1.0 21.2.0-beta.1 21.3.0 21.6.0 22.3.0 24.1.0 25.3.0 25.5.0; do
//     (cd /tmp && npm pack @azure/arm-containerservice@$v && mkdir -p acs/$v && tar xzf azure-arm-containerservice-$v.tgz -C acs/$v)
//   done
//   node tools/gen-aks-api-versions.mjs /tmp/aks-specs \
//     --source "FumingZhang/azure-rest-api-specs@de1f3772629b6f4d3ac01548a5f6d719bfb97c9e" \
//     $(for v in 21.1.0 21.2.0-beta.1 21.3.0 21.6.0 22.3.0 24.1.0 25.3.0 25.5.0; do echo --sdk /tmp/acs/$v/package; done)
// A newer spec checkout adds the later versions by the same command, and its spec files replace the packages'.
// - the old stables, 2018-03-31 … 2022-04-01 (issue 29): the Python models of azure-mgmt-containerservice 21.1.0, the
//   multi-api package az 2.45 ships (Debian python3-azure), one folder per api-version generated from that version's
//   spec; tools/aks-python-models.py dumps them as autorest mappers. They were added to the file generated above
//   without its spec checkout, by --merge (the versions of an earlier output, kept as they were):
//     /usr/bin/python3 tools/aks-python-models.py > /tmp/aks-python-models.json
//     node tools/gen-aks-api-versions.mjs --merge <earlier managed-clusters.json> \
//       --python-models /tmp/aks-python-models.json --from 2017-08-31 --source "<the earlier file's source>"
//   With a spec checkout, the same --python-models beside <spec-root> and --from 2017-08-31 gives one run for all.
//   2017-08-31 has no Python model: it is served with 2018-03-31's less what its spec lacks (unread-versions.json).
//
// The file: `versions` maps each api-version to its kind (stable/preview), its source (`spec`: the spec file,
// or `sdk`: the package), the definitions it has (name → stored variant) and its operations (stored variants). A definition or operation with the same
// content in several versions is stored once, as "<name>@<first version it appears in>" (for the 39 spec
// versions: one file of 0.9 MB, where one file per version came to 2.9 MB).
//   definitions: ManagedCluster, ManagedClusterProperties, AgentPool, ManagedClusterAgentPoolProfile,
//     ContainerServiceNetworkProfile and every object definition they reach. allOf bases are folded in, so
//     `properties` is the full member set on the wire (wire names; client renames are ignored). A member has
//     its type/format, `ref` (an object definition's name in the same version), `items`,
//     `additionalProperties`, an `enum` {name, modelAsString, values}, the spec's `default` (and as
//     `defaultNote` the sentences of its description that state a default in prose), `readOnly`,
//     `secret`, `mutability` (x-ms-mutability) with `createOnly` when it allows create but not update, and the
//     spec's constraints. A definition from another file (common-types) is named
//     "<path under specification/>#<name>".
//   operations: every path × method of the spec file with its operationId, the body's definition, response
//     codes, x-ms-pageable, and x-ms-long-running-operation (with final-state-via when stated).

import { readFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { defaultNote } from './aks-default-note.mjs';
import { readPythonModels, readSdkVersion } from './aks-sdk-mappers.mjs';
import { isModularPackage, readModularVersion } from './aks-sdk-modular.mjs';
import { PROVIDER_DIR, SPEC_FILE, findSpecs } from './aks-spec-files.mjs';
import { stableJson } from './stable-json.mjs';

const ROOTS = ['AgentPool', 'ContainerServiceNetworkProfile', 'ManagedCluster', 'ManagedClusterAgentPoolProfile', 'ManagedClusterProperties'];
const METHODS = ['get', 'put', 'patch', 'post', 'delete', 'head'];
// Spec keywords copied onto a member as they are: they are what a request is validated against.
const CONSTRAINTS = [
  'format',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'pattern',
  'minItems',
  'maxItems',
  'uniqueItems',
];

function usage(message) {
  if (message) process.stderr.write(`${message}\n`);
  process.stderr.write(
    'usage: node tools/gen-aks-api-versions.mjs [<spec-root>] [--sdk PACKAGE-DIR]... [--python-models FILE]... [--merge FILE]\n' +
      '       [--out FILE] [--from YYYY-MM-DD] [--source TEXT]\n',
  );
  process.exit(2);
}

function parseArgs(argv) {
  const args = { out: 'src/aks/api-versions/managed-clusters.json', from: '2022-06-01', source: 'unrecorded', sdk: [], python: [] };
  const rest = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (['--out', '--from', '--source', '--sdk', '--python-models', '--merge'].includes(a)) {
      if (i + 1 >= argv.length) usage(`${a} needs a value`);
      if (a === '--sdk') args.sdk.push(resolve(argv[++i]));
      else if (a === '--python-models') args.python.push(resolve(argv[++i]));
      else if (a === '--merge') args.merge = resolve(argv[++i]);
      else args[a.slice(2)] = argv[++i];
    } else if (a.startsWith('--')) usage(`unknown option ${a}`);
    else rest.push(a);
  }
  if (rest.length > 1 || (rest.length === 0 && !args.merge)) usage();
  args.root = rest.length === 1 ? resolve(rest[0]) : undefined;
  return args;
}

/** Loads JSON files once and resolves "$ref" strings (relative file + JSON pointer) against them. */
class Resolver {
  constructor(root) {
    this.specRoot = join(root, 'specification');
    this.files = new Map();
  }
  load(file) {
    let doc = this.files.get(file);
    if (!doc) {
      doc = JSON.parse(readFileSync(file, 'utf8'));
      this.files.set(file, doc);
    }
    return doc;
  }
  /** { file, pointer, node } for a $ref written in `fromFile`. */
  resolve(ref, fromFile) {
    const [path, fragment = ''] = ref.split('#');
    const file = path ? resolve(dirname(fromFile), path) : fromFile;
    let node = this.load(file);
    const parts = fragment.split('/').filter((p) => p !== '');
    for (const part of parts) {
      const key = part.replace(/~1/g, '/').replace(/~0/g, '~');
      if (node === undefined || node === null || !Object.hasOwn(node, key)) {
        throw new Error(`unresolved $ref ${ref} from ${fromFile}`);
      }
      node = node[key];
    }
    return { file, pointer: fragment, node };
  }
  /** The definitions key: the bare name in the version's own file, else "<path under specification/>#<name>". */
  definitionKey(file, pointer, mainFile) {
    const name = pointer.split('/').pop();
    if (file === mainFile) return name;
    return `${relative(this.specRoot, file).split(sep).join('/')}#${name}`;
  }
}

function isObjectSchema(node) {
  return (
    node.type === 'object' || node.properties !== undefined || node.allOf !== undefined || (node.type === undefined && node.additionalProperties !== undefined)
  );
}

/** An object with no members of its own, only additionalProperties: a map such as tags. */
function isMap(node) {
  return node.additionalProperties !== undefined && node.properties === undefined && node.allOf === undefined;
}

/** Builds one version's definitions from its spec file. */
class VersionReader {
  constructor(resolver, mainFile) {
    this.resolver = resolver;
    this.mainFile = mainFile;
    this.definitions = {};
  }

  /** Registers the object definition at a $ref (once) and returns its key. */
  definitionAt(ref, fromFile) {
    const { file, pointer, node } = this.resolver.resolve(ref, fromFile);
    const key = this.resolver.definitionKey(file, pointer, this.mainFile);
    if (!Object.hasOwn(this.definitions, key)) {
      this.definitions[key] = null; // placeholder: a definition that reaches itself stops here
      this.definitions[key] = this.objectDefinition(node, file);
    }
    return key;
  }

  /** An object definition with its allOf bases folded in. */
  objectDefinition(node, file) {
    const properties = {};
    const required = new Set();
    const bases = [];
    for (const part of node.allOf ?? []) {
      const base = part.$ref ? this.resolver.resolve(part.$ref, file) : { file, pointer: '', node: part };
      if (part.$ref) bases.push(this.resolver.definitionKey(base.file, base.pointer, this.mainFile));
      const folded = this.objectDefinition(base.node, base.file);
      Object.assign(properties, folded.properties);
      for (const r of folded.required ?? []) required.add(r);
      if (folded.extends) bases.push(...folded.extends);
    }
    for (const [name, member] of Object.entries(node.properties ?? {})) properties[name] = this.member(member, file);
    for (const r of node.required ?? []) required.add(r);
    const out = { properties };
    if (required.size > 0) out.required = [...required].sort();
    if (bases.length > 0) out.extends = [...new Set(bases)].sort();
    if (node.additionalProperties !== undefined) out.additionalProperties = this.additional(node.additionalProperties, file);
    return out;
  }

  additional(value, file) {
    return typeof value === 'boolean' ? value : this.member(value, file);
  }

  /** A member's schema: object definitions become `ref`, primitive ones (enums) are inlined. */
  member(node, file) {
    let out = {};
    if (node.$ref) {
      const target = this.resolver.resolve(node.$ref, file);
      // An object definition is referred to by name; an enum, a primitive or a plain map is carried by the member.
      if (isObjectSchema(target.node) && target.node.enum === undefined && !isMap(target.node)) {
        out.ref = this.definitionAt(node.$ref, file);
      } else out = this.member(target.node, target.file);
    } else if (isObjectSchema(node) && (node.properties || node.allOf)) {
      Object.assign(out, this.objectDefinition(node, file));
      out.type = 'object';
    }
    if (node.type !== undefined) out.type = node.type;
    for (const k of CONSTRAINTS) if (node[k] !== undefined) out[k] = node[k];
    if (node.enum !== undefined) {
      const xEnum = node['x-ms-enum'] ?? {};
      out.enum = { values: [...node.enum], modelAsString: xEnum.modelAsString === true };
      if (xEnum.name !== undefined) out.enum.name = xEnum.name;
    }
    if (node.default !== undefined) out.default = node.default;
    const note = defaultNote(`${node.title ?? ''}\n${node.description ?? ''}`);
    if (note !== undefined) out.defaultNote = note;
    if (node.readOnly === true) out.readOnly = true;
    if (node['x-ms-secret'] === true) out.secret = true;
    if (node['x-nullable'] !== undefined) out.nullable = node['x-nullable'];
    const mutability = node['x-ms-mutability'];
    if (Array.isArray(mutability)) {
      out.mutability = [...mutability].sort();
      if (mutability.includes('create') && !mutability.includes('update')) out.createOnly = true;
    }
    if (node.items !== undefined) out.items = this.member(node.items, file);
    if (node.additionalProperties !== undefined && out.properties === undefined) {
      out.additionalProperties = this.additional(node.additionalProperties, file);
    }
    return out;
  }

  /** Every operation of the spec file: path, method, id, body, responses, long-running flags. */
  operations(doc) {
    const ops = [];
    for (const [path, item] of Object.entries(doc.paths ?? {})) {
      for (const method of METHODS) {
        const op = item[method];
        if (!op) continue;
        const entry = { path, method, operationId: op.operationId };
        for (const p of [...(item.parameters ?? []), ...(op.parameters ?? [])]) {
          const param = p.$ref ? this.resolver.resolve(p.$ref, this.mainFile).node : p;
          if (param.in === 'body' && param.schema) {
            entry.body = param.schema.$ref ? this.definitionKeyOf(param.schema.$ref) : this.member(param.schema, this.mainFile);
          }
        }
        entry.responses = Object.keys(op.responses ?? {}).sort();
        if (op['x-ms-long-running-operation'] === true) entry.longRunning = true;
        const finalState = op['x-ms-long-running-operation-options']?.['final-state-via'];
        if (finalState !== undefined) entry.finalStateVia = finalState;
        if (op['x-ms-pageable'] !== undefined) entry.pageable = true;
        if (op.deprecated === true) entry.deprecated = true;
        ops.push(entry);
      }
    }
    return ops;
  }

  /** A body's definition key, without registering it (bodies of other resources stay out of `definitions`). */
  definitionKeyOf(ref) {
    const { file, pointer } = this.resolver.resolve(ref, this.mainFile);
    return this.resolver.definitionKey(file, pointer, this.mainFile);
  }
}

const OPTIONAL_EARLY = ['AgentPool', 'ContainerServiceNetworkProfile'];

/** The versions of a file this generator wrote, each as it was read (for --merge). */
function readGenerated(file) {
  const data = JSON.parse(readFileSync(file, 'utf8'));
  return Object.entries(data.versions).map(([apiVersion, v]) => ({
    apiVersion,
    kind: v.kind,
    ...(v.spec !== undefined ? { spec: v.spec } : { sdk: v.sdk }),
    definitions: Object.fromEntries(Object.entries(v.definitions).map(([name, key]) => [name, data.definitions[key]])),
    operations: v.operations.map((key) => data.operations[key]),
  }));
}

function readVersion(resolver, spec, root) {
  const doc = resolver.load(spec.file);
  const reader = new VersionReader(resolver, spec.file);
  for (const name of ROOTS) {
    // The first specs have no agent pool resource (2019-02-01) and no network profile (2018-03-31).
    if (!doc.definitions?.[name] && spec.version < '2019-02-01' && OPTIONAL_EARLY.includes(name)) continue;
    if (!doc.definitions?.[name]) throw new Error(`${spec.file}: no definition ${name}`);
    reader.definitionAt(`#/definitions/${name}`, spec.file);
  }
  return {
    apiVersion: spec.version,
    kind: spec.kind,
    spec: relative(root, spec.file).split(sep).join('/'),
    definitions: reader.definitions,
    operations: reader.operations(doc),
  };
}

function byPathAndMethod(a, b) {
  return a.path === b.path ? METHODS.indexOf(a.method) - METHODS.indexOf(b.method) : a.path < b.path ? -1 : 1;
}

/**
 * One file for all versions: a definition or operation whose content is the same in several versions is stored
 * once, under "<name>@<first version it appears in>", and each version maps names to those variants. Member
 * `ref`s stay bare names, resolved through the version's own map, so a change to one definition adds one variant
 * and leaves the definitions that reach it shared.
 */
function compact(read, args) {
  const definitions = {};
  const operations = {};
  const seen = new Map(); // content → variant key
  const variant = (table, name, content, version) => {
    const text = stableJson(content);
    const known = seen.get(`${name}\n${text}`);
    if (known) return known;
    const key = `${name}@${version}`;
    table[key] = content;
    seen.set(`${name}\n${text}`, key);
    return key;
  };
  const versions = {};
  for (const v of read) {
    const defs = {};
    for (const [name, def] of Object.entries(v.definitions)) defs[name] = variant(definitions, name, def, v.apiVersion);
    const ops = [...v.operations].sort(byPathAndMethod).map((op) => variant(operations, op.operationId, op, v.apiVersion));
    const from = v.spec !== undefined ? { spec: v.spec } : { sdk: v.sdk };
    versions[v.apiVersion] = { kind: v.kind, ...from, definitions: defs, operations: ops };
  }
  return { generator: 'tools/gen-aks-api-versions.mjs', source: args.source, roots: ROOTS, versions, definitions, operations };
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const specs = args.root ? findSpecs(args.root, args.from) : [];
  if (args.root && specs.length === 0) usage(`no ${SPEC_FILE} from ${args.from} under ${join(args.root, PROVIDER_DIR)}`);
  const resolver = args.root ? new Resolver(args.root) : undefined;
  const read = specs.map((spec) => readVersion(resolver, spec, args.root));
  const add = (v) => {
    if (v.apiVersion >= args.from && !read.some((r) => r.apiVersion === v.apiVersion)) read.push(v);
  };
  // The Python models come before the merged file: a version is read from the best source at hand.
  for (const file of args.python) for (const v of readPythonModels(file, ROOTS)) add(v);
  // A package adds its api-version only where no spec file of that version was at hand: the spec says more.
  for (const pkg of args.sdk) {
    const v = isModularPackage(pkg) ? readModularVersion(pkg, ROOTS) : await readSdkVersion(pkg, ROOTS);
    add(v);
  }
  if (args.merge) for (const v of readGenerated(args.merge)) add(v);
  read.sort((a, b) => (a.apiVersion < b.apiVersion ? -1 : a.apiVersion > b.apiVersion ? 1 : 0));
  mkdirSync(dirname(args.out), { recursive: true });
  writeFileSync(args.out, stableJson(compact(read, args)));
  const sdk = read.filter((r) => r.sdk !== undefined).length;
  process.stdout.write(`${read.length} api-versions (${read[0].apiVersion} … ${read.at(-1).apiVersion}; ${sdk} from packages) written to ${args.out}\n`);
}

await main();
