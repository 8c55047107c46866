// Binds the API server's listening socket inside one of aksemu's namespaces and hands it to its parent (the
// aksemu process) over the IPC channel, then exits: `nsenter --net=… setpriv … node api-listener-process.js ADDRESS
// PORT` (api-listener.ts). The socket belongs to the namespace it was bound in wherever its descriptor goes, so the
// parent accepts pods' connections there without any link to the host's network and without a process left running.
import { createServer } from 'node:net';

const host = process.argv[2] ?? '';
const port = Number(process.argv[3]);
const server = createServer();
server.on('error', (e) => {
  process.stderr.write(`${e.message}\n`);
  process.exit(1);
});
server.listen({ host, port, backlog: 511 }, () => {
  if (!process.send) {
    process.stderr.write('no IPC channel to hand the listener to\n');
    process.exit(1);
  }
  process.send('listening', server, () => process.exit(0));
});
