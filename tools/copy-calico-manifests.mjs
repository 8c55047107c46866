#!/usr/bin/env node
// Copies Calico's manifests (the operator's and calico.yaml), byte for byte, from a clone of projectcalico/calico at a release tag into
// test/fixtures/calico/<tag>/ (ignored by git, see test/fixtures/calico/SOURCE.md), and checks each file's
// SHA-256 against the table in SOURCE.md.
//
// Run:
//   node tools/copy-calico-manifests.mjs <calico clone or git dir> [tag, default v3.32.1]
import { join } from 'node:path';
import { args, copyChecked, fixtureDir } from './fixture-copy.mjs';

const FILES = ['operator-crds.yaml', 'tigera-operator.yaml', 'custom-resources.yaml', 'calico.yaml'];
const { repo, rev } = args('node tools/copy-calico-manifests.mjs <calico clone or git dir> [tag]', 'v3.32.1');
const { root, source } = fixtureDir('calico');
let bad = 0;
for (const file of FILES) if (!copyChecked({ repo, rev, path: `manifests/${file}`, source, outDir: join(root, rev) })) bad++;
process.exit(bad ? 1 : 0);
