#!/usr/bin/env node
// Copies flannel's kube-flannel.yml, byte for byte, from a clone of flannel-io/flannel at a release tag into
// test/fixtures/flannel/<tag>/ (ignored by git, see test/fixtures/flannel/SOURCE.md), and checks its SHA-256
// against SOURCE.md.
//
// Run:
//   node tools/copy-flannel-manifest.mjs <flannel clone or git dir> [tag, default v0.28.9]
import { join } from 'node:path';
import { args, copyChecked, fixtureDir } from './fixture-copy.mjs';

const { repo, rev } = args('node tools/copy-flannel-manifest.mjs <flannel clone or git dir> [tag]', 'v0.28.9');
const { root, source } = fixtureDir('flannel');
process.exit(copyChecked({ repo, rev, path: 'Documentation/kube-flannel.yml', source, outDir: join(root, rev) }) ? 0 : 1);
