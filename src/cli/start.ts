// `aksemu start`: run the ARM front door until interrupted.
import { homedir } from 'node:os';
import { join } from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import type { DataplaneMode } from '../dataplane/dataplane.js';
import { DATAPLANE_MODES, DataplaneUnavailableError, loadDataplane } from '../dataplane/load.js';
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
    .addOption(
      new Option('--dataplane <mode>', 'none: control plane only; netns: real networking in Linux network namespaces (root)')
        .choices(DATAPLANE_MODES as string[])
        .default('none'),
    )
    .action(async (opts: { port: number; home?: string; loose: boolean; dataplane: DataplaneMode }) => {
      const say = (line: string) => process.stderr.write(`${line}\n`);
      const home = opts.home ?? defaultHome();
      const log = (line: string) => process.stdout.write(`${line}\n`);
      let dataplane;
      try {
        dataplane = await loadDataplane(opts.dataplane, { home, log });
      } catch (err) {
        if (!(err instanceof DataplaneUnavailableError)) throw err;
        say(`aksemu: ${err.message}`);
        process.exitCode = 1;
        return;
      }
      let server;
      try {
        server = await startServer({ home, port: opts.port, loose: opts.loose, dataplane, log });
      } catch (err) {
        // Nothing was built yet, but the driver may hold helpers: let it go.
        await dataplane.close().catch(() => undefined);
        throw err;
      }
      say(`aksemu: serving ARM at ${server.url}/ (${opts.loose ? 'loose' : 'strict'} mode, data plane ${opts.dataplane})`);
      say(`aksemu: clients find the URL, CA and credentials in ${server.endpointFile}`);
      say(`aksemu: for az: export REQUESTS_CA_BUNDLE=${server.caFile}`);
      const signal = await interrupted();
      say(`aksemu: ${signal}, stopping`);
      await server.close();
    });
}
