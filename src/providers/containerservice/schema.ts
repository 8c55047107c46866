// Request-body models of managedClusters and agentPools, built from each api-version's generated schema
// (src/aks/api-version-data.ts): a member the version does not define is an unknown member, which the RP ignores
// before 2024-01-01 and refuses from then on (unknownMemberAnswer; --strict refuses, --loose drops it at every
// version); read-only members are accepted and ignored, as the RP does when az PUTs back what it GOT. Types are checked as ARM's deserializer does; enums, patterns and bounds are the AKS rules' (src/aks/rules.ts),
// whose errors and wording differ from a schema's.
import { specIntegers, type VersionSchema, type WireMember } from '../../aks/api-version-data.js';
import { refusesUnknownMembers } from '../../aks/api-versions.js';
import { ArmError, type UnknownMember } from '../../arm/errors.js';
import { s, type Refusal, type Schema } from '../../arm/schema.js';
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

/**
 * The RP's refusal of an unknown member (2024-01-01 on): Go's JSON decoder with unknown fields disallowed, which stops
 * at the first one and names it without its path. Code and message as the RP answered a 2025-10-01 agentPools PUT
 * (Azure/terraform-azurerm-avm-res-containerservice-managedcluster#152: `"code": "UnmarshalError"`, `"details": null`,
 * the message below with its doubled final period), the same for managedClusters (#176 there).
 */
function unknownField(members: readonly UnknownMember[]): ArmError {
  return new ArmError(
    400,
    'UnmarshalError',
    `UnmarshalEntity encountered error: json: unknown field ${JSON.stringify(members[0]!.member)} Check that the field is in the right location, is spelled correctly, and is supported in the API version. Visit aka.ms/aks/apiversions for more API version information..`,
  );
}

/** What the RP does with members a request's api-version does not define (docs/aks-rules.md §1.5, Azure/AKS#4060). */
export function unknownMemberAnswer(apiVersion: string): 'ignore' | Refusal {
  return refusesUnknownMembers(apiVersion) ? unknownField : 'ignore';
}
