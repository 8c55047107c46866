// Request-body models of managedClusters and agentPools, built from each api-version's generated schema
// (src/aks/api-version-data.ts): a member the version does not define is an unknown member (refused in strict
// mode, dropped with --loose), read-only members are accepted and ignored, as ARM does when az PUTs back what it
// GOT. Types are checked as ARM's deserializer does; enums, patterns and bounds are the AKS rules' (src/aks/rules.ts),
// whose errors and wording differ from a schema's.
import { specIntegers, type VersionSchema, type WireMember } from '../../aks/api-version-data.js';
import { s, type Schema } from '../../arm/schema.js';
import { profileFor, shortName, type WireRoot } from './wire.js';

function memberModel(schema: VersionSchema, owner: string, name: string, m: WireMember, memo: Map<string, Schema>): Schema {
  if (m.ref !== undefined) return objectModel(schema, m.ref, memo);
  if (m.type === 'array') return s.array(m.items ? memberModel(schema, owner, name, m.items, memo) : s.any());
  if (typeof m.additionalProperties === 'object') {
    const values = m.additionalProperties;
    return name === 'tags' && values.type === 'string' ? s.tags() : s.map(memberModel(schema, owner, name, values, memo));
  }
  switch (m.type) {
    case 'string':
      return s.string();
    case 'boolean':
      return s.boolean();
    case 'integer':
      return s.integer();
    case 'number':
      return specIntegers().has(`${shortName(owner)}.${name}`) ? s.integer() : s.number();
    default:
      return s.any();
  }
}

function objectModel(schema: VersionSchema, name: string, memo: Map<string, Schema>): Schema {
  const known = memo.get(name);
  if (known) return known;
  const def = schema.definition(name);
  if (!def) return s.any();
  if (Object.keys(def.properties).length === 0 && typeof def.additionalProperties === 'object') {
    return s.map(memberModel(schema, name, name, def.additionalProperties, memo));
  }
  const properties: Record<string, Schema> = {};
  const model = s.object(shortName(name), properties);
  // Set before the members are built: definitions may reach themselves (ErrorDetail.details).
  memo.set(name, model);
  for (const [member, m] of Object.entries(def.properties)) {
    properties[member] = m.readOnly ? s.ignored() : memberModel(schema, name, member, m, memo);
  }
  return model;
}

const models = new Map<string, Schema>();

/** The request model of a root definition at one api-version (built once per version). */
export function requestModel(root: WireRoot): (apiVersion: string) => Schema {
  return (apiVersion) => {
    const schema = profileFor(apiVersion).schema;
    const key = `${schema.version}/${root}`;
    let model = models.get(key);
    if (!model) {
      model = objectModel(schema, root, new Map());
      models.set(key, model);
    }
    return model;
  };
}
