// `aksemu start`: run the ARM front door until interrupted.
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Command, InvalidArgumentError, Option } from 'commander';
import type { DataplaneMode } from '../dataplane/dataplane.js';
import { DATAPLANE_MODES, DataplaneUnavailableError, loadDataplane } from '../dataplane/load.js';
import { DEFAULT_PORT } from '../server/port.js';
import { onPath } from './az-env.js';

export function defaultHome(): string {
  return process.env['AKSEMU_HOME'] || join(homedir(), '.aksemu');
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new InvalidArgumentError('expected a port number 0-65535 (0 picks a free port)');
  return port;
}

/** How this user runs aksemu from another shell: `aksemu` when it is on PATH, else this very script. */
function invocation(home: string): string {
  const command = onPath('aksemu') ? 'aksemu' : `node ${fileURLToPath(new URL('../../../bin/aksemu.js', import.meta.url))}`;
  return home === defaultHome() ? command : `AKSEMU_HOME=${home} ${command}`;
}

/** What to do next, printed once the server is up: the seed's walk-through with the real clients. */
function nextSteps(home: string): string[] {
  const aksemu = invocation(home);
  return [
    'aksemu: next, in another shell:',
    `  eval "$(${aksemu} az-env)"    # the real az now talks to this server (or: ${aksemu} az ...)`,
    '  az group create --location eastus --name myResourceGroup',
    '  az aks create -g myResourceGroup -n myAKSCluster --network-plugin none --pod-cidr 10.10.0.0/16 --generate-ssh-keys',
    '  az aks get-credentials -g myResourceGroup -n myAKSCluster',
    '  kubectl get nodes                # NotReady until you install a CNI',
    `  eval "$(${aksemu} sdk-env)"   # the same for the Azure SDKs`,
  ];
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
    .description("Serve ARM and every cluster's Kubernetes API on 127.0.0.1 (HTTPS)")
    .option('--port <port>', 'port to listen on; 0 picks a free one', parsePort, DEFAULT_PORT)
    .option('--home <dir>', 'state directory (default: $AKSEMU_HOME or ~/.aksemu)')
    .option('--loose', 'accept unknown request properties and any well-formed api-version', false)
    .option('--strict', 'refuse unknown request properties where Azure ignores them too (or AKSEMU_STRICT=1)', process.env['AKSEMU_STRICT'] === '1')
    .addOption(
      new Option('--dataplane <mode>', 'none: control plane only; netns: networking in network namespaces (root)')
        .choices(DATAPLANE_MODES as string[])
        .default('none'),
    )
    .action(async (opts: { port: number; home?: string; loose: boolean; strict: boolean; dataplane: DataplaneMode }) => {
      const say = (line: string) => process.stderr.write(`${line}\n`);
      if (opts.loose && opts.strict) {
        say('aksemu: --loose and --strict (or AKSEMU_STRICT=1) contradict each other; choose one');
        process.exitCode = 2;
        return;
      }
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
      // Loaded here, not at the top: every other command (`aksemu az …` above all) starts without the server's modules.
      const { startServer } = await import('../server/server.js');
      let server;
      try {
        server = await startServer({ home, port: opts.port, loose: opts.loose, strict: opts.strict, dataplane, log });
      } catch (err) {
        // Nothing was built yet, but the driver may hold helpers: let it go.
        await dataplane.close().catch(() => undefined);
        throw err;
      }
      say(`aksemu: serving ARM at ${server.url}/ (${opts.loose ? 'loose' : opts.strict ? 'strict' : 'default'} mode, data plane ${opts.dataplane})`);
      say(`aksemu: clients find the URL, CA and credentials in ${server.endpointFile}`);
      say(`dashboard: ${server.dashboardUrl}`);
      say(`aksemu: the dashboard link works once; \`${invocation(home)} dashboard\` prints a new one`);
      for (const line of nextSteps(home)) say(line);
      const signal = await interrupted();
      say(`aksemu: ${signal}, stopping`);
      await server.close();
    });
}
