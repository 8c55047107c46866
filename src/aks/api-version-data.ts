// The reader of src/aks/api-versions/managed-clusters.json, the Microsoft.ContainerService api-version data that
// tools/gen-aks-api-versions.mjs generates from the REST specs and SDK packages (its header gives the shape).
// The file is read once, on first use, from the source tree: the compiled module sits at dist/src/aks/, the data
// next to the source at src/aks/api-versions/. unread-versions.json adds the published versions whose spec is not read
// here, each with the definitions of a version the data has (its note says which and why; docs/aks-rules.md §1.2).
import { readFileSync } from 'node:fs';

export interface WireMember {
  type?: string;
  format?: string;
  ref?: string;
  items?: WireMember;
  additionalProperties?: WireMember | boolean;
  enum?: { name?: string; modelAsString: boolean; values: unknown[] };
  default?: unknown;
  defaultNote?: string;
  readOnly?: boolean;
  secret?: boolean;
}

export interface WireDefinition {
  properties: Record<string, WireMember>;
  required?: string[];
  additionalProperties?: WireMember | boolean;
}

interface VersionEntry {
  kind: 'stable' | 'preview';
  /** Set when the version was read from its spec file; unset when from an SDK package (`sdk`). */
  spec?: string;
  /** Set for an unread version: the data version whose definitions it is served with. */
  schemaOf?: string;
  definitions: Record<string, string>;
}

interface UnreadVersion {
  kind: 'stable' | 'preview';
  schemaOf: string;
  /** Definition → members of schemaOf's definition that this version does not have. */
  lacks?: Record<string, string[]>;
  evidence: string;
}

interface Data {
  versions: Record<string, VersionEntry>;
  definitions: Record<string, WireDefinition>;
}

let data: Data | undefined;

const readData = <T>(file: string): T => JSON.parse(readFileSync(new URL(`../../../src/aks/api-versions/${file}`, import.meta.url), 'utf8')) as T;

function load(): Data {
  if (data) return data;
  const read = readData<Data>('managed-clusters.json');
  const unread = readData<{ versions: Record<string, UnreadVersion> }>('unread-versions.json').versions;
  for (const [version, { kind, schemaOf, lacks = {} }] of Object.entries(unread)) {
    const base = read.versions[schemaOf];
    if (!base) continue;
    const definitions = { ...base.definitions };
    for (const [name, members] of Object.entries(lacks)) {
      const stored = definitions[name];
      const def = stored === undefined ? undefined : read.definitions[stored];
      if (!def) continue;
      const key = `${name}@${version}`;
      const properties = Object.fromEntries(Object.entries(def.properties).filter(([m]) => !members.includes(m)));
      read.definitions[key] = { ...def, properties, ...(def.required ? { required: def.required.filter((m) => !members.includes(m)) } : {}) };
      definitions[name] = key;
    }
    read.versions[version] = { kind, schemaOf, definitions };
  }
  data = read;
  return data;
}

/** Every api-version the data describes, oldest first. */
export function dataVersions(): string[] {
  return Object.keys(load().versions).sort();
}

/** One api-version's definitions by name (undefined for a name the version does not have). */
export interface VersionSchema {
  version: string;
  definition(name: string): WireDefinition | undefined;
}

const schemas = new Map<string, VersionSchema>();

export function versionSchema(version: string): VersionSchema | undefined {
  const cached = schemas.get(version);
  if (cached) return cached;
  const d = load();
  const entry = d.versions[version];
  if (!entry) return undefined;
  const schema: VersionSchema = {
    version,
    definition: (name) => {
      const stored = Object.hasOwn(entry.definitions, name) ? entry.definitions[name] : undefined;
      return stored === undefined ? undefined : d.definitions[stored];
    },
  };
  schemas.set(version, schema);
  return schema;
}

let integers: Set<string> | undefined;

/**
 * "Definition.member" for every member some spec file types `integer`. The SDK packages' mappers say `Number` for
 * integers and decimals alike, so for the versions read from them this tells which numbers are integers.
 */
export function specIntegers(): ReadonlySet<string> {
  if (integers) return integers;
  const d = load();
  const found = new Set<string>();
  for (const entry of Object.values(d.versions)) {
    if (entry.spec === undefined) continue;
    for (const [name, stored] of Object.entries(entry.definitions)) {
      for (const [member, m] of Object.entries(d.definitions[stored]?.properties ?? {})) if (m.type === 'integer') found.add(`${name}.${member}`);
    }
  }
  integers = found;
  return found;
}

/** A member of a definition, or undefined when the version does not define it. */
export function memberOf(schema: VersionSchema, definition: string, member: string): WireMember | undefined {
  const def = schema.definition(definition);
  return def && Object.hasOwn(def.properties, member) ? def.properties[member] : undefined;
}
