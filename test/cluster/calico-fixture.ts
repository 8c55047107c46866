// Where the Calico calico.yaml fixture lives (test/fixtures/calico/SOURCE.md) and why a test skips without it.
import { existsSync } from 'node:fs';
import { HAVE_KUBECTL } from './harness.js';
import { thirdPartyFile } from '../third-party.js';

export const CALICO_MANIFEST = thirdPartyFile('calico', 'v3.32.1', 'calico.yaml');

export const calicoSkip: string | false = !HAVE_KUBECTL
  ? 'no /usr/bin/kubectl on this machine'
  : !existsSync(CALICO_MANIFEST)
    ? `Calico v3.32.1 calico.yaml not in ${CALICO_MANIFEST}: put it there as test/fixtures/calico/SOURCE.md says (tools/copy-calico-manifests.mjs)`
    : false;
