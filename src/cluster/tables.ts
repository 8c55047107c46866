// Server-side printing (docs/clients.md §5.4): `kubectl get` asks for a meta.k8s.io/v1 Table and prints its
// cells verbatim, so STATUS, ROLES, AGE… are computed here, by the printer each kind declares (kinds.ts,
// printers.ts); everything else gets the default Name / Created At table.
import { kindNamed } from './kinds.js';
import type { KubeObject } from './objects/object.js';
import { defaultPrinter, type Printer } from './printers.js';

export function printerFor(kind: string): Printer {
  return kindNamed(kind)?.printer ?? defaultPrinter;
}

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

export function tableRow(obj: KubeObject, include: IncludeObject, now = Date.now()): Record<string, unknown> {
  const printer = printerFor(obj.kind);
  const row: Record<string, unknown> = { cells: printer.cells(obj, now) };
  const o = rowObject(obj, include);
  if (o !== undefined) row['object'] = o;
  const conditions = printer.conditions?.(obj);
  if (conditions) row['conditions'] = conditions;
  return row;
}

export function table(
  kind: string,
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
    columnDefinitions: withColumns ? printerFor(kind).columns : null,
    rows: objects.map((o) => tableRow(o, include, now)),
  };
}
