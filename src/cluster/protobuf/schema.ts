// The field tables that drive decoding: per message, field number → JSON name and type. Tables are written
// as one short string per field (the numbers are Kubernetes' generated.proto numbers; the rest is how the
// apiserver's Go JSON writes the field):
//
//   'name type'        a field; `type` is a scalar, a well-known type or another message of the tables
//   'name type[]'      repeated
//   'name map<type>'   map<string, type> (entries: key = 1, value = 2)
//   'name type!'       kept when zero: a pointer in Go, or a field without `omitempty`. Without `!` a zero
//                      scalar ("", 0, false) is dropped, as Go's omitempty drops it (Kubernetes' generated
//                      marshallers write every non-pointer field, zero or not). A list or map with `!` that
//                      is absent reads null, as Go writes a nil slice without omitempty (ClusterRole.rules)
//   '... Message'      an embedded Go struct whose fields JSON inlines into the parent (LocalObjectReference
//                      in ConfigMapKeySelector, ProbeHandler in Probe, VolumeSource in Volume)

/** Wire scalars. */
export type ScalarType = 'string' | 'bytes' | 'bool' | 'int32' | 'int64';
/** Messages with a JSON form of their own: metav1.Time (RFC 3339, null when zero), resource.Quantity (its string), intstr.IntOrString (a number or a string). */
export type WellKnownType = 'Time' | 'Quantity' | 'IntOrString';

export interface FieldSpec {
  /** The JSON member; undefined for an inlined struct. */
  json: string | undefined;
  type: string;
  repeated: boolean;
  map: boolean;
  keepZero: boolean;
}

export type MessageTable = Readonly<Record<number, string>>;

/** One API group version's tables: the kinds it decodes (each a message of the same name) and its messages. */
export interface GroupTables {
  apiVersion: string;
  kinds: readonly string[];
  /** Kinds registered in every group version (metav1.AddToGroupVersion's options kinds), whatever apiVersion names them. */
  everyVersionKinds?: readonly string[];
  messages: Readonly<Record<string, MessageTable>>;
}

const SCALARS = new Set<string>(['string', 'bytes', 'bool', 'int32', 'int64']);
const WELL_KNOWN = new Set<string>(['Time', 'Quantity', 'IntOrString']);

export function isScalar(type: string): type is ScalarType {
  return SCALARS.has(type);
}

export function isWellKnown(type: string): type is WellKnownType {
  return WELL_KNOWN.has(type);
}

const FIELD = /^(\.\.\.|[A-Za-z][A-Za-z0-9]*) (?:map<([A-Za-z0-9]+)>|([A-Za-z0-9]+)(\[\])?)(!?)$/;

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
  private readonly everyVersion = new Set<string>();

  constructor(groups: readonly GroupTables[]) {
    for (const g of groups) {
      for (const [name, table] of Object.entries(g.messages)) {
        if (this.messages.has(name)) throw new Error(`protobuf message ${name} defined twice`);
        this.messages.set(name, new Map(Object.entries(table).map(([no, spec]) => [Number(no), parseField(spec)])));
      }
      for (const kind of g.kinds) this.kinds.set(`${g.apiVersion}/${kind}`, kind);
      for (const kind of g.everyVersionKinds ?? []) this.everyVersion.add(kind);
    }
    for (const [name, fields] of this.messages) {
      for (const f of fields.values()) {
        if (!isScalar(f.type) && !isWellKnown(f.type) && !this.messages.has(f.type))
          throw new Error(`protobuf message ${name} refers to unknown type ${f.type}`);
      }
    }
    for (const [key, kind] of [...this.kinds, ...[...this.everyVersion].map((k) => [`*/${k}`, k] as const)])
      if (!this.messages.has(kind)) throw new Error(`protobuf kind ${key} has no table`);
  }

  /** The root message of apiVersion/kind, or undefined when there is no table for it. */
  messageFor(apiVersion: string, kind: string): string | undefined {
    return this.kinds.get(`${apiVersion}/${kind}`) ?? (this.everyVersion.has(kind) ? kind : undefined);
  }

  fields(message: string): ReadonlyMap<number, FieldSpec> {
    const fields = this.messages.get(message);
    if (!fields) throw new Error(`no protobuf table for ${message}`);
    return fields;
  }

  /** apiVersion, Kind pairs with a table, for messages that list what is supported. */
  supportedKinds(): string[] {
    return [...this.kinds.keys()];
  }
}
