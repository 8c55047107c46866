// Where a checkout of azure-rest-api-specs keeps the Microsoft.ContainerService managedClusters specs, for the
// tools that read them (gen-aks-api-versions.mjs, copy-aks-spec-examples.mjs).

import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

export const SPEC_FILE = 'managedClusters.json';
export const PROVIDER_DIR = join('specification', 'containerservice', 'resource-manager', 'Microsoft.ContainerService');

/**
 * Every <kind>/<version>/managedClusters.json under <root>/PROVIDER_DIR from version `from` on, oldest first:
 * { version, kind: 'stable' | 'preview', file }. Both layouts are read: aks/{stable,preview}/<version> (newer)
 * and {stable,preview}/<version> (older); a version in both keeps the aks/ copy.
 */
export function findSpecs(root, from) {
  const found = new Map();
  for (const base of [join(root, PROVIDER_DIR, 'aks'), join(root, PROVIDER_DIR)]) {
    for (const kind of ['stable', 'preview']) {
      const dir = join(base, kind);
      if (!existsSync(dir)) continue;
      for (const version of readdirSync(dir)) {
        const file = join(dir, version, SPEC_FILE);
        if (version >= from && existsSync(file) && !found.has(version)) {
          found.set(version, { version, kind: version.endsWith('-preview') ? 'preview' : kind, file });
        }
      }
    }
  }
  return [...found.values()].sort((a, b) => (a.version < b.version ? -1 : a.version > b.version ? 1 : 0));
}
