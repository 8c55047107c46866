// Label and field selectors as the apiserver parses them: `a=b`, `a==b`, `a!=b` (both); labels also
// `a in (x,y)`, `a notin (x)`, `a`, `!a`. Field paths are read from the object (`metadata.name`,
// `spec.nodeName`, `involvedObject.namespace`); a missing field compares as the empty string. Labels and
// fields are read as the object's own keys: `constructor` is a label key like any other.
import { own } from '../../http/own.js';
import { badRequest } from './status.js';

export type Requirement = (
  | { key: string; op: '=' | '!='; value: string }
  | { key: string; op: 'in' | 'notin'; values: string[] }
  | { key: string; op: 'exists' | '!exists' }
) & {
  /** A field requirement's reading of its label, as its kind reads it (apiserver/field-labels.ts); the path without. */
  read?: (obj: unknown) => string;
};

/** Splits on commas that are not inside parentheses. */
function splitTop(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of text) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      parts.push(current);
      current = '';
    } else current += ch;
  }
  parts.push(current);
  return parts.map((p) => p.trim()).filter((p) => p !== '');
}

export function parseLabelSelector(text: string | null | undefined): Requirement[] {
  if (!text) return [];
  return splitTop(text).map((part) => {
    // `key = value`, `key == value`, `key != value`: by scanning (a backtracking pattern took seconds on a long run of '=').
    const eq = operatorAt(part);
    if (eq) {
      const key = part.slice(0, eq.at).trimEnd();
      const value = part.slice(eq.at + eq.length).trimStart();
      if (key !== '' && !/\s/.test(key) && !/\s/.test(value)) return { key, op: eq.op, value };
    }
    let m = /^(\S+)\s+(in|notin)\s*\(([^)]*)\)$/.exec(part);
    if (m) return { key: m[1]!, op: m[2] as 'in' | 'notin', values: m[3]!.split(',').map((v) => v.trim()) };
    m = /^!\s*(\S+)$/.exec(part);
    if (m) return { key: m[1]!, op: '!exists' };
    if (/^[^\s=!(),]+$/.test(part)) return { key: part, op: 'exists' };
    throw badRequest(`unable to parse requirement: found '${part}', expected: in, notin, =, ==, !=, gt, lt`);
  });
}

/** The first `==`, `!=` or `=` in text: found by scanning, not by a backtracking pattern (selectors are user input). */
function operatorAt(text: string): { at: number; op: '=' | '!='; length: number } | undefined {
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '!' && text[i + 1] === '=') return { at: i, op: '!=', length: 2 };
    if (text[i] === '=') return { at: i, op: '=', length: text[i + 1] === '=' ? 2 : 1 };
  }
  return undefined;
}

export function parseFieldSelector(text: string | null | undefined): Requirement[] {
  if (!text) return [];
  return splitTop(text).map((part) => {
    const found = operatorAt(part);
    const key = found ? part.slice(0, found.at).trim() : '';
    if (!found || key === '' || /\s/.test(key)) throw badRequest(`invalid selector: '${text}'; can't understand '${part}'`);
    return { key, op: found.op, value: part.slice(found.at + found.length).trim() };
  });
}

function matches(req: Requirement, value: string | undefined): boolean {
  switch (req.op) {
    case '=':
      return value !== undefined && value === req.value;
    case '!=':
      return (value ?? '') !== req.value;
    case 'in':
      return value !== undefined && req.values.includes(value);
    case 'notin':
      return value === undefined || !req.values.includes(value);
    case 'exists':
      return value !== undefined;
    case '!exists':
      return value === undefined;
  }
}

export function matchLabels(reqs: Requirement[], labels: Record<string, string> | undefined): boolean {
  return reqs.every((r) => matches(r, own<string>(labels, r.key)));
}

/** A metav1.LabelSelector (matchLabels and matchExpressions): null or absent selects nothing, `{}` everything. */
export function labelSelectorMatches(
  sel: { matchLabels?: Record<string, string>; matchExpressions?: Array<{ key: string; operator: string; values?: string[] }> } | null | undefined,
  labels: Record<string, string> | undefined,
): boolean {
  if (!sel) return false;
  for (const [k, v] of Object.entries(sel.matchLabels ?? {})) if (own(labels, k) !== v) return false;
  for (const e of sel.matchExpressions ?? []) {
    const value = own<string>(labels, e.key);
    const values = e.values ?? [];
    const ok =
      e.operator === 'In'
        ? value !== undefined && values.includes(value)
        : e.operator === 'NotIn'
          ? value === undefined || !values.includes(value)
          : e.operator === 'Exists'
            ? value !== undefined
            : e.operator === 'DoesNotExist'
              ? value === undefined
              : false;
    if (!ok) return false;
  }
  return true;
}

export function fieldValue(obj: unknown, path: string): string {
  let cur: unknown = obj;
  for (const part of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return '';
    cur = own(cur, part);
  }
  if (cur === undefined || cur === null) return '';
  return typeof cur === 'object' ? JSON.stringify(cur) : String(cur);
}

export function matchFields(reqs: Requirement[], obj: unknown): boolean {
  return reqs.every((r) => matches(r, r.read ? r.read(obj) : fieldValue(obj, r.key)));
}

export interface Selector {
  labels: Requirement[];
  fields: Requirement[];
}

export function parseSelector(query: URLSearchParams): Selector {
  return { labels: parseLabelSelector(query.get('labelSelector')), fields: parseFieldSelector(query.get('fieldSelector')) };
}

export function selects(selector: Selector, obj: { metadata?: { labels?: Record<string, string> } }): boolean {
  return matchLabels(selector.labels, obj.metadata?.labels) && matchFields(selector.fields, obj);
}
