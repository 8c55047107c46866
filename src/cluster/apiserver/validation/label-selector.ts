// metav1 validation of a LabelSelector (k8s.io/apimachinery/pkg/apis/meta/v1/validation ValidateLabelSelector):
// matchLabels keys and values, each matchExpressions operator with its values, keys and (since values are
// validated in selectors, AllowInvalidLabelValueInSelector false) the values as label values. The selector's
// shape was checked when the body was decoded (shape.ts).
import type { LabelSelector } from '../../apimachinery/types.js';
import { fieldError, type StatusCause } from '../../apimachinery/status.js';
import { isQualifiedName, isValidLabelValue } from '../../apimachinery/names.js';

export function validateLabelSelector(sel: LabelSelector | null | undefined, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  if (!sel) return causes;
  for (const [k, v] of Object.entries(sel.matchLabels ?? {})) {
    for (const m of isQualifiedName(k)) causes.push(fieldError.invalid(`${path}.matchLabels`, k, m));
    for (const m of isValidLabelValue(String(v))) causes.push(fieldError.invalid(`${path}.matchLabels`, v, m));
  }
  for (const [i, e] of (sel.matchExpressions ?? []).entries()) {
    const at = `${path}.matchExpressions[${i}]`;
    const values = e.values ?? [];
    switch (e.operator) {
      case 'In':
      case 'NotIn':
        if (values.length === 0) causes.push(fieldError.required(`${at}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (values.length > 0) causes.push(fieldError.forbidden(`${at}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
        break;
      default:
        causes.push(fieldError.invalid(`${at}.operator`, e.operator ?? '', 'not a valid selector operator'));
    }
    for (const m of isQualifiedName(e.key ?? '')) causes.push(fieldError.invalid(`${at}.key`, e.key ?? '', m));
    for (const [j, v] of values.entries()) for (const m of isValidLabelValue(v)) causes.push(fieldError.invalid(`${at}.values[${j}]`, v, m));
  }
  return causes;
}
