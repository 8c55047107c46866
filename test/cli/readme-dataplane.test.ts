// The README's data-plane walk-through, run as written (readme-harness.ts), in the order the README gives: the BYO
// CNI walk-through's cluster made first on the same home (with the real az, under a server without the data plane),
// that server stopped, `aksemu start --dataplane netns` on the same home, then the walk-through's commands in a
// reader's shell, whose output must be what the README's comments say. Root only; every namespace goes at the end.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { test } from 'node:test';
import { AZ } from '../az/real-az-env.js';
import { DataplaneWorld, skipReason } from '../e2e/dataplane-harness.js';
import { startTestServer } from '../e2e/harness.js';
import { ReaderShell, shellBlocks } from './readme-harness.js';

const skip = skipReason() || (!existsSync(AZ) && `${AZ} is not installed`) || false;

test('README walk-through: the data plane, after the BYO CNI walk-through on the same home', { skip, timeout: 600_000 }, async () => {
  const [serve, walk, ...rest] = shellBlocks('### The data plane: `aksemu start --dataplane netns`');
  assert.equal(rest.length, 0);
  // The server's block is the one command the world starts in-process: the netns driver on the same home.
  assert.equal(serve!.trim(), 'aksemu start --dataplane netns');
  const world = new DataplaneWorld();
  const shell = new ReaderShell(world.home);
  try {
    const plain = await startTestServer({ home: world.home });
    try {
      const [create, install] = shellBlocks('### Walk-through: bring your own CNI');
      await shell.ok(create!);
      await shell.ok(`eval "$(aksemu az-env)"\n${install!}`);
    } finally {
      await plain.close();
    }
    await world.start();
    const r = await shell.ok(walk!);
    const out = r.stdout.split('\n');
    const pod = JSON.parse((await shell.ok(`kubectl get pods -l app=web -o json`)).stdout).items[0];
    const svc = JSON.parse((await shell.ok('kubectl get svc web -o json')).stdout);
    // kubenet: the VM sees the pod's node IP; the VM reaches the pod through the UDR; the Service through kube-proxy.
    assert.ok(out.includes(`connected from ${pod.status.hostIP}`), r.stdout);
    assert.ok(out.includes('connected from 10.224.0.100'), r.stdout);
    assert.ok(
      out.some((l) => /^connected \(backend default\/web-[a-z0-9]+-[a-z0-9]{5}\)$/.test(l)),
      r.stdout,
    );
    // nslookup names the Service's ClusterIP; curl gets the page aksemu's nginx serves.
    assert.match(r.stdout, /Name:\s+web\.default\.svc\.cluster\.local\nAddress:\s+(\S+)/);
    assert.equal(/Name:\s+web\.default\.svc\.cluster\.local\nAddress:\s+(\S+)/.exec(r.stdout)![1], svc.spec.clusterIP);
    assert.match(r.stdout, /<p>Served by aksemu for pod web-[a-z0-9]+-[a-z0-9]{5}\.<\/p>/);
    // The API server from the pod (its /version), and vm1 by name through Azure DNS.
    assert.match(r.stdout, /"gitVersion": ?"v1\.\d+\.\d+"/);
    assert.match(r.stdout, /Name:\s+vm1\.\S+\.internal\.cloudapp\.net\nAddress:\s+10\.224\.0\.100/);
  } finally {
    shell.remove();
    await world.close();
  }
  world.assertClean();
});
