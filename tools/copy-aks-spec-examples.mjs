#!/usr/bin/env node
// Copies azure-rest-api-specs request/response examples, byte for byte, for the spec-examples test suite
// (test/spec-examples/): those of managedClusters and agentPools (the operations ManagedClusters_*, AgentPools_*
// and ContainerService_* of managedClusters.json) into <out>/<version>/, and with --network <version> those of the
// Microsoft.Network operations aksemu routes (NETWORK_OPERATIONS) into <out>/network/<version>/. Each folder also
// gets operations.json, the index the suite runs from (the example files do not name their operation): per
// operation its operationId, method, path template, body parameter, long-running flag and final-state-via, and
// its example files.
//
// Run:
//   node tools/copy-aks-spec-examples.mjs <spec-root> <version>... [--network <version>] [--out test/fixtures/aks-spec-examples]
// <spec-root> is the folder holding specification/ (see tools/gen-aks-api-versions.mjs for the extract used; add
// specification/network/resource-manager/Microsoft.Network/stable/<version> to it for --network).

import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { findSpecs } from './aks-spec-files.mjs';

const AKS_OPERATIONS = /^(ManagedClusters|AgentPools|ContainerService)_/;
const NETWORK_DIR = join('specification', 'network', 'resource-manager', 'Microsoft.Network', 'stable');
// The Microsoft.Network spec files holding the resources aksemu serves (src/providers/network), and the
// operations of theirs it routes, plus UpdateTags (issue 14 item 4 adds the PATCH): aksemu serves no other.
const NETWORK_FILES = ['virtualNetwork.json', 'networkSecurityGroup.json', 'routeTable.json', 'networkInterface.json'];
const CRUD = ['CreateOrUpdate', 'Get', 'Delete', 'List'];
const TRACKED = [...CRUD, 'ListAll', 'UpdateTags'];
const NETWORK_OPERATIONS = new Set([
  ...['VirtualNetworks', 'NetworkSecurityGroups', 'RouteTables', 'NetworkInterfaces'].flatMap((group) => TRACKED.map((op) => `${group}_${op}`)),
  ...['Subnets', 'SecurityRules', 'Routes'].flatMap((group) => CRUD.map((op) => `${group}_${op}`)),
  'DefaultSecurityRules_List',
]);
const METHODS = ['get', 'put', 'patch', 'post', 'delete', 'head'];

/** The operations of one spec file that `wanted` accepts, with their example files (absolute paths). */
function operationsOf(specFile, wanted) {
  const doc = JSON.parse(readFileSync(specFile, 'utf8'));
  const operations = [];
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op || !wanted(op.operationId ?? '')) continue;
      const examples = Object.values(op['x-ms-examples'] ?? {}).map((e) => resolve(dirname(specFile), e.$ref));
      if (examples.length === 0) continue;
      const body = [...(item.parameters ?? []), ...(op.parameters ?? [])].find((p) => p.in === 'body');
      operations.push({
        operationId: op.operationId,
        method: method.toUpperCase(),
        path,
        ...(body ? { bodyParameter: body.name } : {}),
        longRunning: op['x-ms-long-running-operation'] === true,
        ...(op['x-ms-long-running-operation-options']?.['final-state-via']
          ? { finalStateVia: op['x-ms-long-running-operation-options']['final-state-via'] }
          : {}),
        examples,
      });
    }
  }
  return operations;
}

/** Copies the operations' examples into dir and writes dir/operations.json (sorted, so a rerun is byte-identical). */
function writeFolder(dir, operations) {
  mkdirSync(dir, { recursive: true });
  const files = new Set(operations.flatMap((op) => op.examples));
  for (const file of [...files].sort()) copyFileSync(file, join(dir, basename(file)));
  const index = operations
    .map((op) => ({ ...op, examples: op.examples.map((f) => basename(f)).sort() }))
    .sort((a, b) => (a.operationId < b.operationId ? -1 : a.operationId > b.operationId ? 1 : 0));
  writeFileSync(join(dir, 'operations.json'), `${JSON.stringify(index, null, 2)}\n`);
  process.stdout.write(`${dir}: ${operations.length} operations, ${files.size} examples\n`);
}

function main() {
  const argv = process.argv.slice(2);
  let out = 'test/fixtures/aks-spec-examples';
  const network = [];
  const rest = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--out' && i + 1 < argv.length) out = argv[++i];
    else if (argv[i] === '--network' && i + 1 < argv.length) network.push(argv[++i]);
    else rest.push(argv[i]);
  }
  if (rest.length < 1) {
    process.stderr.write('usage: node tools/copy-aks-spec-examples.mjs <spec-root> <version>... [--network <version>] [--out DIR]\n');
    process.exit(2);
  }
  const [root, ...versions] = rest;
  const specs = new Map(findSpecs(resolve(root), '').map((s) => [s.version, s]));
  for (const version of versions) {
    const spec = specs.get(version);
    if (!spec) throw new Error(`no managedClusters.json for ${version} under ${root}`);
    writeFolder(
      join(out, version),
      operationsOf(spec.file, (id) => AKS_OPERATIONS.test(id)),
    );
  }
  for (const version of network) {
    const dir = join(resolve(root), NETWORK_DIR, version);
    writeFolder(
      join(out, 'network', version),
      NETWORK_FILES.flatMap((file) => operationsOf(join(dir, file), (id) => NETWORK_OPERATIONS.has(id))),
    );
  }
}

main();
