#!/usr/bin/env node
// Copies the azure-rest-api-specs request/response examples of managedClusters and agentPools (the operations
// ManagedClusters_*, AgentPools_* and ContainerService_* of managedClusters.json, found through their
// x-ms-examples) for the given api-versions into <out>/<version>/, byte for byte.
//
// Run:
//   node tools/copy-aks-spec-examples.mjs <spec-root> <version>... [--out test/fixtures/aks-spec-examples]
// <spec-root> is the folder holding specification/ (see tools/gen-aks-api-versions.mjs for the extract used).

import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { findSpecs } from './aks-spec-files.mjs';

const OPERATION_GROUPS = /^(ManagedClusters|AgentPools|ContainerService)_/;

function main() {
  const argv = process.argv.slice(2);
  let out = 'test/fixtures/aks-spec-examples';
  const rest = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--out' && i + 1 < argv.length) out = argv[++i];
    else rest.push(argv[i]);
  }
  if (rest.length < 2) {
    process.stderr.write('usage: node tools/copy-aks-spec-examples.mjs <spec-root> <version>... [--out DIR]\n');
    process.exit(2);
  }
  const [root, ...versions] = rest;
  const specs = new Map(findSpecs(resolve(root), '').map((s) => [s.version, s]));
  for (const version of versions) {
    const spec = specs.get(version);
    if (!spec) throw new Error(`no managedClusters.json for ${version} under ${root}`);
    const doc = JSON.parse(readFileSync(spec.file, 'utf8'));
    const files = new Set();
    for (const item of Object.values(doc.paths ?? {})) {
      for (const op of Object.values(item)) {
        if (!op || typeof op !== 'object' || !OPERATION_GROUPS.test(op.operationId ?? '')) continue;
        for (const example of Object.values(op['x-ms-examples'] ?? {})) files.add(resolve(dirname(spec.file), example.$ref));
      }
    }
    const dir = join(out, version);
    mkdirSync(dir, { recursive: true });
    for (const file of [...files].sort()) copyFileSync(file, join(dir, basename(file)));
    process.stdout.write(`${version}: ${files.size} examples copied to ${dir}\n`);
  }
}

main();
