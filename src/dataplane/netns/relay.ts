// One `kubectl port-forward` connection, run inside the pod's network namespace as nobody
// (`nsenter --net=… setpriv … node relay.js PORT`, exec-sandbox.ts spawnRelay): connects to 127.0.0.1:PORT, as
// the kubelet's port forwarder does, and copies stdin to the socket and the socket to stdout, each direction
// closed on its own. A connection that fails prints the kubelet's words on stderr and exits 1.
import { connect } from 'node:net';

const port = Number(process.argv[2]);
const socket = connect({ host: '127.0.0.1', port });
let connected = false;
socket.on('connect', () => {
  connected = true;
  process.stdin.pipe(socket);
});
socket.pipe(process.stdout);
socket.on('error', (e: NodeJS.ErrnoException) => {
  // The words of containerd's port forwarder (the CRI runtime behind AKS's kubelet): "failed to connect to
  // localhost:PORT inside namespace …".
  if (!connected) process.stderr.write(`failed to connect to localhost:${port} inside namespace: ${e.message}\n`);
  process.exitCode = 1;
  process.stdout.end();
});
// Both directions done: leave at once (stdin may still be open).
socket.on('close', () => process.stdout.end(() => process.exit()));
process.stdin.on('error', () => socket.destroy());
process.stdout.on('error', () => socket.destroy());
