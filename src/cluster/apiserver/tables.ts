// Server-side printing (docs/clients.md §5.4): `kubectl get` asks for a meta.k8s.io/v1 Table and prints its
// cells verbatim, so STATUS, ROLES, AGE… are computed here, by the printer each kind declares (kinds.ts,
// printers.ts, or a CRD's additionalPrinterColumns: apiserver/crd/columns.ts); the API passes the kind's printer (kinds
// are told apart by their ResourceType, never by name: a CRD may name its kind NetworkPolicy too).
import type { KubeObject } from '../apimachinery/object.js';
import type { Printer } from './printers.js';

export type IncludeObject = 'None' | 'Metadata' | 'Object';

export function includeObjectOf(query: URLSearchParams): IncludeObject {
  const v = query.get('includeObject');
  return v === 'None' || v === 'Object' ? v : 'Metadata';
}

/** True when the client asked for a Table (`as=Table;g=meta.k8s.io`) among its acceptable types. */
export function wantsTable(accept: string | undefined): boolean {
  return /as=Table/i.test(accept ?? '') && /g=meta\.k8s\.io/i.test(accept ?? '');
}

function rowObject(obj: KubeObject, include: IncludeObject): unknown {
  if (include === 'None') return undefined;
  if (include === 'Object') return obj;
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: obj.metadata };
}

export function tableRow(printer: Printer, obj: KubeObject, include: IncludeObject, now = Date.now()): Record<string, unknown> {
  const row: Record<string, unknown> = { cells: printer.cells(obj, now) };
  const o = rowObject(obj, include);
  if (o !== undefined) row['object'] = o;
  const conditions = printer.conditions?.(obj);
  if (conditions) row['conditions'] = conditions;
  return row;
}

export function table(
  printer: Printer,
  objects: KubeObject[],
  include: IncludeObject,
  metadata: Record<string, unknown>,
  withColumns = true,
): Record<string, unknown> {
  const now = Date.now();
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata,
    columnDefinitions: withColumns ? printer.columns : null,
    rows: objects.map((o) => tableRow(printer, o, include, now)),
  };
}
