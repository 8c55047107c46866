// The field tables that drive decoding: per message, field number → JSON name and type. The tables are
// generated from Kubernetes' generated.proto files and Go types (tools/gen-protobuf-tables.mjs, output in
// generated/), one short string per field (the numbers are generated.proto's; the rest is how the apiserver's
// Go JSON writes the field):
//
//   'name type'        a field; `type` is a scalar, a well-known type or a message, named with its package
//                      ('core.v1.PodSpec')
//   'name type[]'      repeated
//   'name map<type>'   map<string, type> (entries: key = 1, value = 2)
//   'name type!'       kept when zero: a pointer in Go, or a field without `omitempty`. Without `!` a zero
//                      scalar ("", 0, false) is dropped, as Go's omitempty drops it (Kubernetes' generated
//                      marshallers write every non-pointer field, zero or not). A list, map or message with
//                      `!` that is absent reads null, as Go writes a nil slice or pointer without omitempty
//                      (ClusterRole.rules, TokenRequestSpec.boundObjectRef)
//   '... Message'      an embedded Go struct whose fields JSON inlines into the parent (LocalObjectReference
//                      in ConfigMapKeySelector, ProbeHandler in Probe, VolumeSource in Volume)
//   '* type[]!'        the message is a named Go slice (authentication's ExtraValue): its JSON is the list
//   '?1 type', '?2 …'  the message marshals as one of its fields (apiextensions' JSONSchemaPropsOrBool and the
//                      like): the first present in this order; when none is, the scalar one's zero, or null

/** Wire scalars. */
export type ScalarType = 'string' | 'bytes' | 'bool' | 'int32' | 'int64' | 'double';
/**
 * Messages with a JSON form of their own: metav1.Time (RFC 3339, null when zero), metav1.MicroTime (six
 * fractional digits), metav1.FieldsV1 and runtime.RawExtension (raw JSON), resource.Quantity (its string),
 * intstr.IntOrString (a number or a string), apiextensions' JSON (raw JSON).
 */
export type WellKnownType = 'Time' | 'MicroTime' | 'FieldsV1' | 'RawExtension' | 'JSON' | 'Quantity' | 'IntOrString';

export interface FieldSpec {
  /** The JSON member; undefined for an inlined struct, '*' for the list a named slice type is. */
  json: string | undefined;
  type: string;
  repeated: boolean;
  map: boolean;
  keepZero: boolean;
}

export type MessageTable = Readonly<Record<number, string>>;

/** One proto package's tables: the kinds it decodes (each a message of the same name) and its messages. */
export interface GroupTables {
  /** The package ('core.v1', 'meta.v1'): message names are qualified with it. */
  package: string;
  /** The group version whose kinds these are; undefined for a package that only holds shared messages. */
  apiVersion: string | undefined;
  kinds: readonly string[];
  /** Kinds registered in every group version (metav1.AddToGroupVersion's options kinds), whatever apiVersion names them. */
  everyVersionKinds?: readonly string[];
  messages: Readonly<Record<string, MessageTable>>;
}

const SCALARS = new Set<string>(['string', 'bytes', 'bool', 'int32', 'int64', 'double']);
const WELL_KNOWN = new Set<string>(['Time', 'MicroTime', 'FieldsV1', 'RawExtension', 'JSON', 'Quantity', 'IntOrString']);

export function isScalar(type: string): type is ScalarType {
  return SCALARS.has(type);
}

export function isWellKnown(type: string): type is WellKnownType {
  return WELL_KNOWN.has(type);
}

const FIELD = /^(\.\.\.|\*|\?\d|[A-Za-z_$][\w$-]*) (?:map<([A-Za-z][\w.]*)>|([A-Za-z][\w.]*)(\[\])?)(!?)$/;

export function parseField(spec: string): FieldSpec {
  const m = FIELD.exec(spec);
  if (!m) throw new Error(`bad protobuf field spec '${spec}'`);
  const [, name, mapType, type, list, bang] = m;
  return { json: name === '...' ? undefined : name, type: (mapType ?? type)!, repeated: list === '[]', map: mapType !== undefined, keepZero: bang === '!' };
}

/** Every message of the given groups, parsed, with each referenced type checked to exist. */
export class Schema {
  private readonly messages = new Map<string, ReadonlyMap<number, FieldSpec>>();
  private readonly kinds = new Map<string, string>();
  private readonly everyVersion = new Map<string, string>();
  private readonly unions = new Map<string, FieldSpec[]>();

  constructor(groups: readonly GroupTables[]) {
    for (const g of groups) {
      for (const [short, table] of Object.entries(g.messages)) {
        const name = `${g.package}.${short}`;
        if (this.messages.has(name)) throw new Error(`protobuf message ${name} defined twice`);
        const fields = new Map(Object.entries(table).map(([no, spec]) => [Number(no), parseField(spec)]));
        if ([...fields.values()].some((f) => f.json === '*') && (fields.size !== 1 || !fields.get(1)?.repeated))
          throw new Error(`protobuf message ${name}: a list message has one repeated field, 1`);
        const members = [...fields.values()].filter((f) => f.json?.startsWith('?'));
        if (members.length > 0) {
          if (members.length !== fields.size) throw new Error(`protobuf message ${name}: a union has only members`);
          this.unions.set(
            name,
            members.sort((a, b) => a.json!.localeCompare(b.json!)),
          );
        }
        this.messages.set(name, fields);
      }
      if (g.kinds.length > 0 && g.apiVersion === undefined) throw new Error(`protobuf package ${g.package} has kinds but no apiVersion`);
      for (const kind of g.kinds) this.kinds.set(`${g.apiVersion}/${kind}`, `${g.package}.${kind}`);
      for (const kind of g.everyVersionKinds ?? []) this.everyVersion.set(kind, `${g.package}.${kind}`);
    }
    for (const [name, fields] of this.messages) {
      for (const f of fields.values()) {
        if (!isScalar(f.type) && !isWellKnown(f.type) && !this.messages.has(f.type))
          throw new Error(`protobuf message ${name} refers to unknown type ${f.type}`);
      }
    }
    for (const [key, message] of [...this.kinds, ...[...this.everyVersion].map(([k, m]) => [`*/${k}`, m] as const)])
      if (!this.messages.has(message)) throw new Error(`protobuf kind ${key} has no table`);
  }

  /** The root message of apiVersion/kind, or undefined when there is no table for it. */
  messageFor(apiVersion: string, kind: string): string | undefined {
    return this.kinds.get(`${apiVersion}/${kind}`) ?? this.everyVersion.get(kind);
  }

  fields(message: string): ReadonlyMap<number, FieldSpec> {
    const fields = this.messages.get(message);
    if (!fields) throw new Error(`no protobuf table for ${message}`);
    return fields;
  }

  /** Whether the message is a named slice: its JSON is its one list (schema format '* type[]'). */
  isList(message: string): boolean {
    return this.fields(message).get(1)?.json === '*';
  }

  /** A union message's members, in the order its JSON tries them; undefined for any other message. */
  union(message: string): readonly FieldSpec[] | undefined {
    return this.unions.get(message);
  }

  /** apiVersion/Kind pairs with a table. */
  supportedKinds(): string[] {
    return [...this.kinds.keys()];
  }
}
