#!/usr/bin/env node
// Generates the api-version lists aksemu serves for Microsoft.Network, Microsoft.Resources and
// Microsoft.Authorization (issue 14): data read from authoritative sources rather than hand-typed tables.
//
// Run:
//   node tools/gen-arm-api-versions.mjs --specs <azure-rest-api-specs.git> --commit <sha> [--source TEXT]
//        [--pkg <package-dir>]...
// The sources of a list:
// - the spec repository's version folders at <commit>, read with `git ls-tree` (a bare clone is enough):
//   specification/<service>/resource-manager/<Namespace>/{stable,preview}/<version>/, where a list names the
//   spec files its resource types are in (Microsoft.Resources: resources.json for resource groups and
//   deployments, subscriptions.json for subscriptions and tenants; Microsoft.Authorization: the role
//   assignment and role definition files; Microsoft.Network: every folder, its types share one version set);
// - each --pkg, an unpacked published SDK package (`npm pack`, its package/ folder): the api-version it sends
//   by default (tools/arm-package-api-version.mjs), for the packages published after the spec commit;
// - EXTRA below: versions aksemu served before this data existed that neither names, kept so that no version
//   a client used disappears, each list with its reason.
// Each list is newest first (ARM's order in its errors), except Microsoft.Resources' legacy tail, which ARM's
// InvalidApiVersionParameter message lists last in its own order.
//
// Where the committed data came from:
// - specs: the fork FumingZhang/azure-rest-api-specs at commit de1f3772629b6f4d3ac01548a5f6d719bfb97c9e (a sync
//   of Azure/azure-rest-api-specs main of 2024-06-11);
// - packages (the newest of each major the npm registry had from the spec commit on, and the minors of
//   @azure/arm-network 33 that moved its default): @azure/arm-network 33.0.0 (2023-06-01), 33.3.0
//   (2024-01-01), 33.4.0 (2024-03-01), 33.5.0 (2024-05-01), 34.1.0 (2024-10-01), 35.0.0 (2025-03-01), 36.0.0
//   (2025-05-01), 37.0.0 (2025-07-01), 38.0.0 (2025-09-01), 39.0.0 (2026-01-01); @azure/arm-resources 5.2.0
//   (2021-04-01), 6.1.0 (2025-03-01), 7.0.0 and 8.0.0 (2025-04-01); @azure/arm-resources-subscriptions 2.1.1 and
//   3.0.0 (2022-12-01); @azure/arm-authorization 9.0.0 (2022-04-01 for role assignments and definitions).
// The commands:
//   P="arm-network@33.0.0 arm-network@33.3.0 arm-network@33.4.0 arm-network@33.5.0 arm-network@34.1.0
//      arm-network@35.0.0 arm-network@36.0.0 arm-network@37.0.0 arm-network@38.0.0 arm-network@39.0.0
//      arm-resources@5.2.0 arm-resources@6.1.0 arm-resources@7.0.0 arm-resources@8.0.0
//      arm-resources-subscriptions@2.1.1 arm-resources-subscriptions@3.0.0 arm-authorization@9.0.0"
//   for p in $P; do n=${p%@*}; v=${p#*@}
//     (cd /tmp/armpk && npm pack @azure/$p && mkdir -p $n/$v && tar xzf azure-$n-$v.tgz -C $n/$v)
//   done
//   node tools/gen-arm-api-versions.mjs --specs <fork.git> --commit de1f3772629b6f4d3ac01548a5f6d719bfb97c9e \
//     --source "FumingZhang/azure-rest-api-specs@de1f3772629b6f4d3ac01548a5f6d719bfb97c9e" \
//     $(for p in $P; do n=${p%@*}; echo --pkg /tmp/armpk/$n/${p#*@}/package; done)
// The output is deterministic (a second run gives byte-identical files).
//
// A file: { generator, namespace, source, lists: { <list>: { versions, spec, packages, extra } } } where
// `versions` is the served list (what the TS modules read), `spec` the versions the spec folders give,
// `packages` each package's default, `extra` { reason, versions } (and `armTail`, Microsoft.Resources only).

import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { packageApiVersion } from './arm-package-api-version.mjs';
import { stableJson } from './stable-json.mjs';

const KEPT = 'served by aksemu before this list was generated; no spec folder at the commit read and no package default names it';

const NAMESPACES = [
  {
    namespace: 'Microsoft.Network',
    out: 'src/providers/network/api-versions.json',
    specDir: 'specification/network/resource-manager/Microsoft.Network',
    lists: {
      all: {
        files: /\.json$/,
        packages: [['@azure/arm-network']],
        extra: {
          reason: `${KEPT} (@azure/arm-network went from 33.5.0's 2024-05-01 to 34.1.0's 2024-10-01 and 35.0.0's 2025-03-01)`,
          versions: ['2024-07-01', '2025-01-01'],
        },
      },
    },
  },
  {
    namespace: 'Microsoft.Resources',
    out: 'src/arm/api-versions.json',
    specDir: 'specification/resources/resource-manager/Microsoft.Resources',
    lists: {
      all: {
        files: /^(resources|subscriptions)\.json$/,
        packages: [['@azure/arm-resources'], ['@azure/arm-resources-subscriptions']],
        extra: {
          reason: `${KEPT}: the versions ARM's own InvalidApiVersionParameter message lists for Microsoft.Resources, which registers versions (for its other resource types and older ones) that have no spec folder`,
          versions: [
            '2025-01-01',
            '2024-11-01',
            '2024-08-01',
            '2024-07-01',
            '2024-06-01-preview',
            '2023-07-01-preview',
            '2023-03-01-preview',
            '2022-11-01-preview',
            '2022-06-01',
            '2022-05-01',
            '2022-03-01-preview',
            '2022-01-01',
            '2020-09-01',
            '2020-07-01',
            '2020-05-01',
            '2019-09-01',
            '2018-11-01',
            '2018-09-01',
            '2018-08-01',
            '2018-07-01',
            '2018-01-01',
            '2017-12-01',
            '2017-08-01',
            '2017-06-01',
            '2017-05-01',
            '2017-03-01',
            '2015-01-01',
          ],
          // Last in ARM's message, in ARM's order (not date order).
          armTail: ['2014-04-01-preview', '2014-04-01', '2014-01-01', '2013-03-01', '2014-02-26', '2014-04'],
        },
      },
    },
  },
  {
    namespace: 'Microsoft.Authorization',
    out: 'src/providers/authorization/api-versions.json',
    specDir: 'specification/authorization/resource-manager/Microsoft.Authorization',
    lists: {
      roleAssignments: {
        files: /RoleAssignmentsCalls\.json$/,
        packages: [['@azure/arm-authorization', 'roleAssignments']],
        extra: { reason: KEPT, versions: ['2022-01-01-preview', '2021-04-01-preview', '2019-04-01-preview', '2018-07-01'] },
      },
      roleDefinitions: {
        files: /RoleDefinitionsCalls\.json$/,
        packages: [['@azure/arm-authorization', 'roleDefinitions']],
        extra: { reason: KEPT, versions: ['2018-07-01', '2017-05-01'] },
      },
    },
  },
];

function usage(message) {
  if (message) process.stderr.write(`${message}\n`);
  process.stderr.write('usage: node tools/gen-arm-api-versions.mjs --specs GIT-DIR --commit SHA [--source TEXT] [--pkg PACKAGE-DIR]...\n');
  process.exit(2);
}

function parseArgs(argv) {
  const args = { pkg: [], source: 'unrecorded' };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!['--specs', '--commit', '--source', '--pkg'].includes(a)) usage(`unknown argument ${a}`);
    if (i + 1 >= argv.length) usage(`${a} needs a value`);
    if (a === '--pkg') args.pkg.push(resolve(argv[++i]));
    else args[a.slice(2)] = argv[++i];
  }
  if (!args.specs || !args.commit) usage();
  return args;
}

/** Newest date first; on the same date the stable version before its preview (ARM's order: 2023-07-01, 2023-07-01-preview). */
function newestFirst(a, b) {
  const [da, db] = [a.slice(0, 10), b.slice(0, 10)];
  if (da !== db) return da < db ? 1 : -1;
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}

/** The versions whose stable/ or preview/ folder holds a file `files` matches, at the commit. */
function specVersions(args, specDir, files) {
  const out = execFileSync('git', ['-C', args.specs, 'ls-tree', '-r', '--name-only', args.commit, `${specDir}/stable`, `${specDir}/preview`], {
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  const found = new Set();
  for (const path of out.split('\n')) {
    const m = /\/(?:stable|preview)\/([^/]+)\/([^/]+)$/.exec(path.slice(specDir.length));
    if (m && files.test(m[2])) found.add(m[1]);
  }
  return [...found].sort(newestFirst);
}

function buildList(args, specDir, list) {
  const spec = specVersions(args, specDir, list.files);
  const packages = {};
  for (const pkg of args.pkg) {
    for (const [name, group] of list.packages) {
      const read = packageApiVersion(pkg, undefined);
      if (read.name !== name) continue;
      packages[`${read.name}@${read.version}`] = group ? packageApiVersion(pkg, group).apiVersion : read.apiVersion;
    }
  }
  const tail = list.extra.armTail ?? [];
  const dated = new Set([...spec, ...Object.values(packages), ...list.extra.versions]);
  for (const v of tail) dated.delete(v);
  const known = new Set([...spec, ...Object.values(packages)]);
  const needless = [...list.extra.versions, ...tail].filter((v) => known.has(v));
  if (needless.length > 0) throw new Error(`${specDir}: extra versions the sources already give: ${needless.join(', ')}`);
  return { versions: [...[...dated].sort(newestFirst), ...tail], spec, packages, extra: list.extra };
}

function main() {
  const args = parseArgs(process.argv.slice(2));
  for (const ns of NAMESPACES) {
    const lists = {};
    for (const [name, list] of Object.entries(ns.lists)) lists[name] = buildList(args, ns.specDir, list);
    mkdirSync(dirname(ns.out), { recursive: true });
    writeFileSync(ns.out, stableJson({ generator: 'tools/gen-arm-api-versions.mjs', namespace: ns.namespace, source: args.source, lists }));
    const counts = Object.entries(lists).map(([n, l]) => `${n}: ${l.versions.length} (${l.versions[0]} newest)`);
    process.stdout.write(`${ns.namespace} → ${ns.out}: ${counts.join(', ')}\n`);
  }
}

main();
