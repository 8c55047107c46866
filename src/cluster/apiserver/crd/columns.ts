// additionalPrinterColumns: the Table a custom resource prints as (`kubectl get`), each cell the value of the
// column's JSONPath, as the apiextensions apiserver's tableconvertor computes it
// (staging/src/k8s.io/apiextensions-apiserver/pkg/registry/customresource/tableconvertor/tableconvertor.go): the
// Name column first, then the CRD's columns; a CRD without columns gets an Age column (.metadata.creationTimestamp).
import { isPlainObject, own } from '../../../http/own.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { age } from '../../apimachinery/time.js';
import type { Column, Printer } from '../printers.js';
import type { PrinterColumnSpec } from './definition.js';

type Step = { field: string } | { index: number } | { all: true } | { filter: string; equals: string };

/** Parses the JSONPath subset CRDs use: `.a.b`, `.a[0]`, `.a[*]`, `.a[?(@.type=="Ready")]`, optionally in braces. */
export function parseJsonPath(path: string): Step[] | undefined {
  let p = path.trim();
  if (p.startsWith('{') && p.endsWith('}')) p = p.slice(1, -1);
  if (p.startsWith('$')) p = p.slice(1);
  const steps: Step[] = [];
  // A field name may hold backslash-escaped dots (`.metadata.labels.io\.kubernetes\.pod\.namespace`, client-go jsonpath).
  const re = /\.((?:\\.|[^.[\]\\])+)|\[(\d+)\]|\[\*\]|\[\?\(@\.([^=!<>]+?)\s*==\s*["']([^"']*)["']\)\]|\['([^']*)'\]/y;
  let at = 0;
  while (at < p.length) {
    re.lastIndex = at;
    const m = re.exec(p);
    if (!m) return undefined;
    if (m[1] !== undefined) steps.push({ field: m[1].replace(/\\(.)/g, '$1') });
    else if (m[2] !== undefined) steps.push({ index: Number(m[2]) });
    else if (m[3] !== undefined) steps.push({ filter: m[3], equals: m[4]! });
    else if (m[5] !== undefined) steps.push({ field: m[5] });
    else steps.push({ all: true });
    at = re.lastIndex;
  }
  return steps;
}

function fieldOf(v: unknown, path: string): unknown {
  let cur = v;
  for (const part of path.split('.')) cur = isPlainObject(cur) ? own(cur, part) : undefined;
  return cur;
}

/** Every value the path selects. */
export function evaluate(steps: Step[], root: unknown): unknown[] {
  let values: unknown[] = [root];
  for (const s of steps) {
    const next: unknown[] = [];
    for (const v of values) {
      if ('field' in s) {
        const f = isPlainObject(v) ? own(v, s.field) : undefined;
        if (f !== undefined) next.push(f);
      } else if ('index' in s) {
        if (Array.isArray(v) && s.index < v.length) next.push(v[s.index]);
      } else if ('all' in s) {
        if (Array.isArray(v)) next.push(...v);
        else if (isPlainObject(v)) next.push(...Object.values(v));
      } else if (Array.isArray(v)) {
        for (const item of v) if (String(fieldOf(item, s.filter)) === s.equals) next.push(item);
      }
    }
    values = next;
  }
  return values;
}

/** One cell: the first value for typed columns, text joined by spaces for strings (kubectl's JSONPath printing). */
function cell(type: string, values: unknown[], now: number): unknown {
  if (values.length === 0) return null;
  const first = values[0];
  if (type === 'integer' || type === 'number' || type === 'boolean') return typeof first === 'object' ? JSON.stringify(first) : first;
  // cellForJSONValue: a date prints as its age (ConvertToHumanReadableDateType), "<invalid>" when it is not one.
  if (type === 'date') return typeof first === 'string' && !Number.isNaN(Date.parse(first)) ? age(first, now) : '<invalid>';
  return values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(' ');
}

const NAME_COLUMN: Column = {
  name: 'Name',
  type: 'string',
  format: 'name',
  description:
    'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names',
  priority: 0,
};

const AGE_SPEC: PrinterColumnSpec = {
  name: 'Age',
  type: 'date',
  jsonPath: '.metadata.creationTimestamp',
  description:
    'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata',
};

/** The printer of a custom resource version (columns parsed once, here). */
export function columnsPrinter(specs: PrinterColumnSpec[]): Printer {
  const used = specs.length > 0 ? specs : [AGE_SPEC];
  const parsed = used.map((c) => ({ spec: c, steps: parseJsonPath(c.jsonPath) }));
  return {
    columns: [
      NAME_COLUMN,
      ...used.map((c) => ({ name: c.name, type: c.type, format: c.format ?? '', description: c.description ?? '', priority: c.priority ?? 0 })),
    ],
    cells: (obj: KubeObject, now: number) => [obj.metadata.name, ...parsed.map((c) => (c.steps ? cell(c.spec.type, evaluate(c.steps, obj), now) : null))],
  };
}
