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

/** The last watch event's Table asked for: the `kubectl get -w` watchers of a kind ask for one change's row in turn. */
let lastWatchTable: { printer: Printer; object: KubeObject; include: IncludeObject; body: Record<string, unknown> } | undefined;

/**
 * The Table of one watch event (its columns only in a watch's first), shared by the watchers that ask for the same
 * object's row in the same turn of the event loop (its AGE is as old for all of them): one row built and one line
 * encoded per change instead of one per watcher.
 */
export function watchTable(printer: Printer, obj: KubeObject, include: IncludeObject, withColumns: boolean): Record<string, unknown> {
  const metadata = { resourceVersion: obj.metadata.resourceVersion };
  if (withColumns) return table(printer, [obj], include, metadata);
  const memo = lastWatchTable;
  if (memo !== undefined && memo.object === obj && memo.printer === printer && memo.include === include) return memo.body;
  if (memo === undefined) setImmediate(() => (lastWatchTable = undefined));
  lastWatchTable = { printer, object: obj, include, body: table(printer, [obj], include, metadata, false) };
  return lastWatchTable.body;
}
