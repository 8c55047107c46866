// ARM's TemplateViolation: where in the request a problem is (line and column of the JSON object
// the template parser saw, and its path), when the template came from JSON text.
import type { TemplateViolation } from '../arm/errors.js';
import { positionOf } from './jsonc.js';

export function violationAt(node: unknown, path: string): TemplateViolation | undefined {
  const pos = positionOf(node);
  return pos ? { lineNumber: pos.line, linePosition: pos.column, path } : { lineNumber: 0, linePosition: 0, path };
}
