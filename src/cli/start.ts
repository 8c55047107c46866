// `aksemu start`: run the ARM front door until interrupted.
import { homedir } from 'node:os';
import { join } from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { DEFAULT_PORT, startServer } from '../server/server.js';

export function defaultHome(): string {
  return process.env['AKSEMU_HOME'] || join(homedir(), '.aksemu');
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new InvalidArgumentError('expected a port number 0-65535 (0 picks a free port)');
  return port;
}

/** Resolves on the first SIGINT or SIGTERM. */
function interrupted(): Promise<string> {
  return new Promise((resolve) => {
    const stop = (signal: string) => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve(signal);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

export function registerStart(program: Command): void {
  program
    .command('start')
    .description('Serve Azure Resource Manager (HTTPS on 127.0.0.1) with state under the home directory')
    .option('--port <port>', 'port to listen on; 0 picks a free one', parsePort, DEFAULT_PORT)
    .option('--home <dir>', 'state directory (default: $AKSEMU_HOME or ~/.aksemu)')
    .option('--loose', 'accept unknown request properties and any well-formed api-version', false)
    .action(async (opts: { port: number; home?: string; loose: boolean }) => {
      const server = await startServer({ home: opts.home ?? defaultHome(), port: opts.port, loose: opts.loose });
      const say = (line: string) => process.stderr.write(`${line}\n`);
      say(`aksemu: serving ARM at ${server.url}/ (${opts.loose ? 'loose' : 'strict'} mode)`);
      say(`aksemu: clients find the URL, CA and credentials in ${server.endpointFile}`);
      say(`aksemu: for az: export REQUESTS_CA_BUNDLE=${server.caFile}`);
      const signal = await interrupted();
      say(`aksemu: ${signal}, stopping`);
      await server.close();
    });
}
