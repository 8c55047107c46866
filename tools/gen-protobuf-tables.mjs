#!/usr/bin/env node
// Generates src/cluster/apiserver/protobuf/generated/: the field tables that decode protobuf request bodies
// (src/cluster/apiserver/protobuf/schema.ts explains the table format), one file per proto package, from Kubernetes' own
// definitions, so the tables are data read from the sources rather than hand-typed (issue 25).
//
// Run:
//   node tools/gen-protobuf-tables.mjs --api <k8s.io/api> --apimachinery <k8s.io/apimachinery>
//        --apiextensions <k8s.io/apiextensions-apiserver> --kube-aggregator <k8s.io/kube-aggregator>
//        [--out src/cluster/apiserver/protobuf/generated]
// Each path is a clone of the github.com/kubernetes repository of that name (a work tree or a bare git
// directory): k8s.io/api holds the built-in groups, apimachinery meta/v1 and the well-known types,
// apiextensions-apiserver CustomResourceDefinition, kube-aggregator APIService. From a git repository the generator reads, with `git show`, the staging tag of every
// Kubernetes version aksemu offers (src/aks/kubernetes-versions.ts: 1.21.9 → v0.21.9 … 1.33.5 → v0.33.5) and
// merges them, oldest first, so a field any served version knows decodes, and where a later version changed
// a field the later one wins. Given a plain directory (no .git) it reads the files as they are, as one version.
// The .proto files themselves are never copied into this repository: only what is derived from them.
//
// What each source gives:
// - generated.proto (go-to-protobuf's output): the messages, their field numbers, wire types, repeated fields
//   and maps;
// - the Go types beside it (types.go and the package's other hand-written files): the JSON a field marshals
//   to, which the .proto cannot say — the json tag's name (`,inline` for an embedded struct), `omitempty`,
//   and whether the Go field is a pointer (a pointer or a field without omitempty keeps its zero: `!`), and
//   which structs are kinds (they embed metav1.TypeMeta). A message whose Go type is a slice (ExtraValue,
//   Verbs) marshals as that list: `* items[]`.
// - register.go: the group name of each package.
// Kinds get tables for the group versions the cluster serves (src/cluster/apimachinery/resources.ts) and the subresources'
// kinds (EXTRA_GROUP_VERSIONS); every message they reach is emitted, in whatever package it lives.
//
// The output is deterministic (packages, messages and fields sorted), so a second run on the same input is
// byte-identical: check with `git diff --exit-code src/cluster/apiserver/protobuf/generated`.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Group versions served as subresources (their kinds are bodies, not resources of resources.ts). */
const EXTRA_GROUP_VERSIONS = [
  'authentication.k8s.io/v1', // serviceaccounts/token: TokenRequest (`kubectl create token`)
  'autoscaling/v1', // */scale: Scale
];

/** Messages with a JSON form of their own (schema.ts's well-known types), by proto name. */
const WELL_KNOWN = {
  'k8s.io.apimachinery.pkg.apis.meta.v1.Time': 'Time',
  'k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime': 'MicroTime',
  'k8s.io.apimachinery.pkg.apis.meta.v1.FieldsV1': 'FieldsV1',
  'k8s.io.apimachinery.pkg.api.resource.Quantity': 'Quantity',
  'k8s.io.apimachinery.pkg.util.intstr.IntOrString': 'IntOrString',
  'k8s.io.apimachinery.pkg.runtime.RawExtension': 'RawExtension',
  'k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.JSON': 'JSON',
};

/**
 * Messages whose Go type marshals itself as one of its fields (apiextensions v1 marshal.go): the field numbers
 * in the order MarshalJSON tries them — the first present wins; when none is, the scalar one's zero or null.
 */
const UNIONS = {
  // len(JSONSchemas) > 0 ? JSONSchemas : Schema
  'k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrArray': [2, 1],
  // Schema != nil ? Schema : Allows
  'k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrBool': [2, 1],
  // len(Property) > 0 ? Property : Schema ?? null
  'k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrStringArray': [2, 1],
};

const SCALARS = new Set(['string', 'bytes', 'bool', 'int32', 'int64', 'double']);

function usage(msg) {
  if (msg) console.error(msg);
  console.error('usage: node tools/gen-protobuf-tables.mjs --api <dir> --apimachinery <dir> --apiextensions <dir> --kube-aggregator <dir> [--out <dir>]');
  process.exit(2);
}

function parseArgs(argv) {
  const args = { out: join(ROOT, 'src/cluster/apiserver/protobuf/generated') };
  for (let i = 0; i < argv.length; i++) {
    const key = argv[i];
    const value = argv[++i];
    if (value === undefined) usage(`${key} needs a value`);
    if (key === '--api') args.api = value;
    else if (key === '--apimachinery') args.apimachinery = value;
    else if (key === '--apiextensions') args.apiextensions = value;
    else if (key === '--kube-aggregator') args.aggregator = value;
    else if (key === '--out') args.out = value;
    else usage(`unknown argument ${key}`);
  }
  if (!args.api || !args.apimachinery || !args.apiextensions || !args.aggregator) usage();
  return args;
}

/** A source repository: files read at a ref (git) or from the directory (plain). */
class Source {
  constructor(path) {
    this.path = path;
    if (!existsSync(path)) usage(`${path} does not exist`);
    // A repository of its own (a work tree's .git, or a bare one), not a folder that happens to lie in another.
    let bare = false;
    try {
      bare = execFileSync('git', ['-C', path, 'rev-parse', '--is-bare-repository'], { encoding: 'utf8', stdio: 'pipe' }).trim() === 'true';
    } catch {}
    this.git = bare || existsSync(join(path, '.git'));
  }

  read(ref, file) {
    if (!this.git) {
      const p = join(this.path, file);
      return existsSync(p) ? readFileSync(p, 'utf8') : undefined;
    }
    try {
      return execFileSync('git', ['-C', this.path, 'show', `${ref}:${file}`], { encoding: 'utf8', maxBuffer: 64 << 20, stdio: ['ignore', 'pipe', 'pipe'] });
    } catch {
      return undefined;
    }
  }

  /** File names (no directories) directly in dir. */
  list(ref, dir) {
    if (!this.git) {
      const p = join(this.path, dir);
      return existsSync(p)
        ? readdirSync(p, { withFileTypes: true })
            .filter((d) => d.isFile())
            .map((d) => d.name)
        : [];
    }
    const out = execFileSync('git', ['-C', this.path, 'ls-tree', '--name-only', `${ref}:${dir}`], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    return out.split('\n').filter(Boolean);
  }

  /** Directories holding a generated.proto. */
  protoDirs(ref) {
    if (!this.git) {
      const found = [];
      const walk = (rel) => {
        for (const d of readdirSync(join(this.path, rel), { withFileTypes: true })) {
          if (d.name.startsWith('.')) continue;
          const r = rel ? `${rel}/${d.name}` : d.name;
          if (d.isDirectory()) walk(r);
          else if (d.name === 'generated.proto') found.push(rel);
        }
      };
      walk('');
      return found.sort();
    }
    const out = execFileSync('git', ['-C', this.path, 'ls-tree', '-r', '--name-only', ref], { encoding: 'utf8', maxBuffer: 64 << 20 });
    return out
      .split('\n')
      .filter((f) => f.endsWith('/generated.proto'))
      .map((f) => f.slice(0, -'/generated.proto'.length))
      .sort();
  }
}

// ---- what aksemu serves -------------------------------------------------------------------------------------

function servedVersions() {
  const text = readFileSync(join(ROOT, 'src/aks/kubernetes-versions.ts'), 'utf8');
  const list = text.match(/KUBERNETES_VERSIONS[^=]*=\s*\[([^\]]*)\]/);
  if (!list) throw new Error('no KUBERNETES_VERSIONS in src/aks/kubernetes-versions.ts');
  return [...list[1].matchAll(/'(\d+)\.(\d+)\.(\d+)'/g)].map((m) => ({ kubernetes: `${m[1]}.${m[2]}.${m[3]}`, tag: `v0.${m[2]}.${m[3]}` }));
}

function servedGroupVersions() {
  const text = readFileSync(join(ROOT, 'src/cluster/apimachinery/resources.ts'), 'utf8');
  const gvs = new Set(EXTRA_GROUP_VERSIONS);
  for (const m of text.matchAll(/group: '([^']*)',\s*version: '([^']*)'/g)) gvs.add(m[1] ? `${m[1]}/${m[2]}` : m[2]);
  return gvs;
}

// ---- parsing -------------------------------------------------------------------------------------------------

/** generated.proto → { package, imports, messages: Map<name, Map<no, {name, type, label}>> } (types fully qualified). */
function parseProto(text) {
  const pkg = text.match(/^package ([\w.]+);/m)?.[1];
  if (!pkg) throw new Error('proto without a package');
  const messages = new Map();
  const lines = text.split('\n');
  let current;
  // Older files write full names without the leading dot; a name without dots is the package's own.
  const qualify = (t) => (SCALARS.has(t) ? t : t.startsWith('.') ? t.slice(1) : t.includes('.') ? t : `${pkg}.${t}`);
  for (const raw of lines) {
    const line = raw.replace(/\/\/.*$/, '').trim();
    if (!line) continue;
    let m = line.match(/^message (\w+) \{$/);
    if (m) {
      if (current) throw new Error(`nested message ${m[1]} in ${pkg}`);
      current = new Map();
      messages.set(m[1], current);
      continue;
    }
    if (line === '}') {
      current = undefined;
      continue;
    }
    if (!current) continue;
    m = line.match(/^(optional|repeated) ([\w.]+) (\w+) = (\d+);$/);
    if (m) {
      if (!SCALARS.has(m[2]) && /^[a-z]/.test(m[2]) && !m[2].includes('.')) throw new Error(`unsupported proto type ${m[2]} in ${pkg}`);
      current.set(Number(m[4]), { name: m[3], type: qualify(m[2]), label: m[1] === 'repeated' ? 'list' : 'one' });
      continue;
    }
    m = line.match(/^map<string, ([\w.]+)> (\w+) = (\d+);$/);
    if (m) {
      current.set(Number(m[3]), { name: m[2], type: qualify(m[1]), label: 'map' });
      continue;
    }
    if (/^(reserved|option) /.test(line)) continue;
    throw new Error(`unparsed line in ${pkg}: ${line}`);
  }
  return { package: pkg, messages };
}

/**
 * The package's Go declarations: structs (fields by protobuf number: json name, omitempty, pointer, inline),
 * the structs that embed TypeMeta (kinds), and named slice types.
 */
function parseGo(files) {
  const structs = new Map();
  const kinds = new Set();
  const slices = new Map();
  for (const text of files) {
    const lines = text.split('\n');
    for (let i = 0; i < lines.length; i++) {
      const slice = lines[i].match(/^type (\w+) \[\](\w+)\s*$/);
      if (slice) slices.set(slice[1], slice[2]);
      const empty = lines[i].match(/^type (\w+) struct ?\{\}/);
      if (empty) structs.set(empty[1], new Map());
      const start = lines[i].match(/^type (\w+) struct \{\s*$/);
      if (!start) continue;
      const fields = new Map();
      for (i++; i < lines.length && !/^\}/.test(lines[i]); i++) {
        const line = lines[i].trim();
        if (!line || line.startsWith('//')) continue;
        const m = line.match(/^(?:(\w+)\s+)?(\S+)\s+`([^`]*)`/);
        if (!m) continue;
        const [, name, type, tag] = m;
        const json = tag.match(/json:"([^"]*)"/)?.[1];
        if (name === undefined && /(^|\.)TypeMeta$/.test(type) && json === ',inline') kinds.add(start[1]);
        const pb = tag.match(/protobuf:"([^"]*)"/)?.[1];
        if (!pb || json === undefined) continue;
        const no = Number(pb.split(',')[1]);
        const [jsonName, ...opts] = json.split(',');
        fields.set(no, {
          json: opts.includes('inline') ? undefined : jsonName,
          omitempty: opts.includes('omitempty') || opts.includes('omitzero'),
          pointer: type.startsWith('*'),
        });
      }
      structs.set(start[1], fields);
    }
  }
  return { structs, kinds, slices };
}

const GO_SKIP = /(_test|_fuzz|^zz_generated\..*|^generated\.pb|_swagger_doc_generated|_proto)\.go$/;

/** Everything one version's sources say, keyed by proto package. */
function readVersion(sources, ref) {
  const packages = new Map();
  for (const [module, source, prefix] of sources) {
    for (const dir of source.protoDirs(ref)) {
      if (prefix && !dir.startsWith(prefix)) continue;
      const proto = source.read(ref, `${dir}/generated.proto`);
      if (proto === undefined) continue;
      const parsed = parseProto(proto);
      const goFiles = source
        .list(ref, dir)
        .filter((f) => f.endsWith('.go') && !GO_SKIP.test(f))
        .map((f) => source.read(ref, `${dir}/${f}`) ?? '');
      const go = parseGo(goFiles);
      const register = source.read(ref, `${dir}/register.go`) ?? '';
      const group = register.match(/GroupName = "([^"]*)"/)?.[1];
      const version = dir.split('/').pop();
      packages.set(parsed.package, { ...parsed, go, goPackage: `${module}/${dir}`, group, version });
    }
  }
  return packages;
}

// ---- merging and emitting ---------------------------------------------------------------------------------------

/** `k8s.io.api.batch.v1.Job` → `batch.v1.Job`; apimachinery's meta/v1 → `meta.v1`. */
function shortName(qualified) {
  return qualified.replace(/^k8s\.io\.api\./, '').replace(/^k8s\.io\.\w+\.pkg\.apis\./, '');
}

function packageOf(qualified) {
  return qualified.slice(0, qualified.lastIndexOf('.'));
}

function fieldType(type) {
  return SCALARS.has(type) ? type : (WELL_KNOWN[type] ?? shortName(type));
}

/** One message's table rows from its proto fields and Go struct (or named slice). */
function messageRows(pkg, name) {
  const fields = pkg.messages.get(name);
  const struct = pkg.go.structs.get(name);
  const rows = new Map();
  const union = UNIONS[`${pkg.package}.${name}`];
  if (union) {
    if (union.length !== fields.size || !union.every((no) => fields.has(no))) throw new Error(`${pkg.package}.${name}: union fields changed`);
    union.forEach((no, i) => {
      const f = fields.get(no);
      rows.set(no, `?${i + 1} ${fieldType(f.type)}${f.label === 'list' ? '[]' : ''}!`);
    });
    return rows;
  }
  if (!struct) {
    const elem = pkg.go.slices.get(name);
    const items = fields.get(1);
    if (!elem || fields.size !== 1 || !items || items.label !== 'list') throw new Error(`${pkg.package}.${name}: no Go struct or slice type`);
    // A named slice marshals as the list itself; nil is null.
    rows.set(1, `* ${fieldType(items.type)}[]!`);
    return rows;
  }
  for (const [no, f] of fields) {
    const go = struct.get(no);
    if (!go) throw new Error(`${pkg.package}.${name}: field ${no} (${f.name}) has no Go field`);
    const type = fieldType(f.type);
    // `!`: a scalar's zero is kept (a pointer, or no omitempty); a list, map or pointer to a message without
    // omitempty reads null when absent (Go writes nil so). A non-pointer struct is always on the wire.
    const keep = SCALARS.has(f.type) && f.label === 'one' ? go.pointer || !go.omitempty : !go.omitempty && (f.label !== 'one' || go.pointer);
    if (!/^[\w$-]*$/.test(go.json ?? '')) throw new Error(`${pkg.package}.${name}: JSON name ${go.json} outside the table format`);
    const json = go.json === undefined ? '...' : go.json;
    const shape = f.label === 'map' ? `map<${type}>` : f.label === 'list' ? `${type}[]` : type;
    rows.set(no, `${json} ${shape}${keep ? '!' : ''}`);
  }
  return rows;
}

/** An array literal as the project's formatter (biome, 160 columns) prints it: on one line when it fits. */
function arrayLines(prefix, items, end) {
  const indent = prefix.match(/^ */)[0];
  const one = `${prefix}[${items.join(', ')}]${end}`;
  if (one.length <= 160) return one;
  return [`${prefix}[`, ...items.map((i) => `${indent}  ${i},`), `${indent}]${end}`].join('\n');
}

function main() {
  const args = parseArgs(process.argv.slice(2));
  const api = new Source(args.api);
  const machinery = new Source(args.apimachinery);
  const extensions = new Source(args.apiextensions);
  const aggregator = new Source(args.aggregator);
  const versions = api.git ? servedVersions() : [{ kubernetes: 'work tree', tag: undefined }];
  const served = servedGroupVersions();
  const sources = [
    ['k8s.io/api', api, ''],
    ['k8s.io/apimachinery', machinery, 'pkg/'],
    ['k8s.io/apiextensions-apiserver', extensions, 'pkg/apis/'],
    ['k8s.io/kube-aggregator', aggregator, 'pkg/apis/'],
  ];

  // Merged over versions, oldest first: package → message → field number → row; and each package's kinds.
  const merged = new Map();
  const meta = new Map();
  for (const v of versions) {
    const packages = readVersion(sources, v.tag);
    if (![...packages.keys()].some((p) => p.startsWith('k8s.io.api.'))) throw new Error(`no k8s.io/api protos at ${v.tag ?? args.api}`);
    // Roots: the kinds of served group versions, and DeleteOptions (sent under every group version).
    const roots = [];
    for (const [name, pkg] of packages) {
      const apiVersion = pkg.group === undefined ? undefined : pkg.group ? `${pkg.group}/${pkg.version}` : pkg.version;
      if (apiVersion === undefined || !served.has(apiVersion) || name.startsWith('k8s.io.apimachinery.')) continue;
      const kinds = [...pkg.go.kinds].filter((k) => !k.endsWith('List') && pkg.messages.has(k)).sort();
      const m = meta.get(name) ?? { apiVersion, kinds: new Set() };
      for (const k of kinds) m.kinds.add(k);
      meta.set(name, m);
      roots.push(...kinds.map((k) => `${name}.${k}`));
    }
    roots.push('k8s.io.apimachinery.pkg.apis.meta.v1.DeleteOptions');
    const seen = new Set();
    const visit = (qualified) => {
      if (seen.has(qualified) || WELL_KNOWN[qualified] || SCALARS.has(qualified)) return;
      seen.add(qualified);
      const pkgName = packageOf(qualified);
      const pkg = packages.get(pkgName);
      const msgName = qualified.slice(pkgName.length + 1);
      if (!pkg?.messages.has(msgName)) throw new Error(`${qualified} is referred to but not defined (${v.tag})`);
      const rows = messageRows(pkg, msgName);
      const byMessage = merged.get(pkgName) ?? new Map();
      merged.set(pkgName, byMessage);
      const table = byMessage.get(msgName) ?? new Map();
      byMessage.set(msgName, table);
      for (const [no, row] of rows) table.set(no, row);
      for (const f of pkg.messages.get(msgName).values()) visit(f.type);
    };
    for (const r of roots) visit(r);
  }

  // Emit: one module per package, and an index listing them.
  rmSync(args.out, { recursive: true, force: true });
  mkdirSync(args.out, { recursive: true });
  const from = api.git
    ? `the staging tags ${versions.map((v) => v.tag).join(', ')} (Kubernetes ${versions[0].kubernetes} … ${versions.at(-1).kubernetes})`
    : 'a work tree';
  const header = (what) =>
    [
      `// Generated by tools/gen-protobuf-tables.mjs from ${what} — do not edit; run the generator instead.`,
      `// Sources: generated.proto and Go types of k8s.io/api, apimachinery, apiextensions-apiserver and kube-aggregator at ${from}.`,
      "import type { GroupTables } from '../schema.js';",
      '',
    ].join('\n');
  const modules = [];
  for (const pkgName of [...merged.keys()].sort()) {
    const short = shortName(pkgName);
    const file = `${short.replace(/\./g, '-')}.ts`;
    const constName = short.replace(/[.-]/g, '_').toUpperCase();
    const m = meta.get(pkgName);
    const lines = [header(`${pkgName}'s generated.proto`)];
    lines.push(`export const ${constName}: GroupTables = {`);
    lines.push(`  package: '${short}',`);
    lines.push(`  apiVersion: ${m ? `'${m.apiVersion}'` : 'undefined'},`);
    lines.push(arrayLines('  kinds: ', m ? [...m.kinds].sort().map((k) => `'${k}'`) : [], ','));
    if (pkgName === 'k8s.io.apimachinery.pkg.apis.meta.v1') {
      lines.push("  // DELETE's body, registered in every group version (metav1.AddToGroupVersion).");
      lines.push("  everyVersionKinds: ['DeleteOptions'],");
    }
    lines.push('  messages: {');
    const byMessage = merged.get(pkgName);
    for (const msgName of [...byMessage.keys()].sort()) {
      const rows = [...byMessage.get(msgName)].sort((a, b) => a[0] - b[0]);
      lines.push(`    ${msgName}: {${rows.length ? '' : '},'}`);
      if (rows.length) {
        for (const [no, row] of rows) lines.push(`      ${no}: '${row}',`);
        lines.push('    },');
      }
    }
    lines.push('  },');
    lines.push('};');
    writeFileSync(join(args.out, file), `${lines.join('\n')}\n`);
    modules.push({ file, constName });
  }
  const index = [
    header('every package below'),
    ...modules.map((m) => `import { ${m.constName} } from './${m.file.replace(/\.ts$/, '.js')}';`),
    '',
    "/** Every package's tables, in package order. */",
    arrayLines(
      'export const GENERATED_TABLES: readonly GroupTables[] = ',
      modules.map((m) => m.constName),
      ';',
    ),
    '',
  ];
  writeFileSync(join(args.out, 'index.ts'), index.join('\n'));
  console.log(`wrote ${modules.length + 1} files to ${relative(process.cwd(), args.out) || '.'}`);
}

main();
