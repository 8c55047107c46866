// A client in its own process, so a test can stop it (SIGSTOP) as a slow client: @kubernetes/client-node 1.4's
// informer on the ConfigMaps of one namespace. It prints one JSON line per informer event ('connect', 'error' with
// its code) and, on a `dump` line on stdin, the names it holds; `started` once its first list and watch are up.
import { createInterface } from 'node:readline';
import * as k8s from '@kubernetes/client-node';

// `npm test` runs every file under dist/test: without its arguments this file is not a test and does nothing.
if (process.argv.length < 4) process.exit(0);
const [kubeconfig, namespace] = process.argv.slice(2) as [string, string];
const kc = new k8s.KubeConfig();
kc.loadFromFile(kubeconfig);
const core = kc.makeApiClient(k8s.CoreV1Api);
const say = (o: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(o)}\n`);
const informer = k8s.makeInformer(kc, `/api/v1/namespaces/${namespace}/configmaps`, () => core.listNamespacedConfigMap({ namespace }));
informer.on('connect', () => say({ ev: 'connect' }));
informer.on('error', (err: { code?: number; statusCode?: number; message?: string }) => {
  say({ ev: 'error', code: err.code ?? err.statusCode, message: String(err.message ?? err) });
  // As an operator does on an informer error: start it again after a pause.
  setTimeout(() => void informer.start(), 500);
});
await informer.start();
say({ ev: 'started' });
createInterface({ input: process.stdin }).on('line', (l) => {
  if (l.trim() === 'dump')
    say({
      ev: 'cache',
      names: informer
        .list()
        .map((o) => o.metadata!.name!)
        .sort(),
    });
  if (l.trim() === 'quit') void informer.stop().then(() => process.exit(0));
});
