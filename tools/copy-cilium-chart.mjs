#!/usr/bin/env node
// Copies Cilium's packaged Helm chart, byte for byte, from a clone of cilium/charts into
// test/fixtures/cilium/v<version>/ (ignored by git, see test/fixtures/cilium/SOURCE.md), and checks its SHA-256
// against the table in SOURCE.md.
//
// Run:
//   node tools/copy-cilium-chart.mjs <cilium/charts clone or git dir> [version, default 1.19.6]
import { join } from 'node:path';
import { args, copyChecked, fixtureDir } from './fixture-copy.mjs';

const { repo, rev: version } = args('node tools/copy-cilium-chart.mjs <cilium/charts clone or git dir> [version]', '1.19.6');
const { root, source } = fixtureDir('cilium');
// The commit SOURCE.md names for the file (the charts repository keeps every release at its root).
const commit = /at commit ([0-9a-f]{40})/.exec(source)?.[1] ?? 'HEAD';
process.exit(copyChecked({ repo, rev: commit, path: `cilium-${version}.tgz`, source, outDir: join(root, `v${version}`) }) ? 0 : 1);
