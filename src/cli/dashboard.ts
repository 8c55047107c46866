// `aksemu dashboard`: a fresh one-time login link to the running server's dashboard (docs/dashboard.md §2). It asks
// the server with the ARM credentials of endpoint.json, as `aksemu az` does; the link is printed, never logged.
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { ArmClient } from './az/arm-client.js';
import { readEndpoint, resolveHome } from './az/endpoint.js';
import { AzCliError } from './az/errors.js';
import { HttpsTransport } from './az/transport.js';

interface DashboardIO {
  env: NodeJS.ProcessEnv;
  stdout: { write(s: string): unknown };
  stderr: { write(s: string): unknown };
}

export async function runDashboard(opts: { home?: string }, io: DashboardIO): Promise<number> {
  try {
    const endpoint = readEndpoint(resolveHome(opts.home, io.env));
    const client = new ArmClient(endpoint, endpoint.subscriptionId, new HttpsTransport(readFileSync(endpoint.caFile, 'utf8')), {
      commandName: 'dashboard',
      parameterSetName: '',
    });
    const res = await client.raw('POST', `${endpoint.url}/ui/login-links`, {});
    const url = (res.body as { url?: unknown } | undefined)?.url;
    if (res.status !== 200 || typeof url !== 'string') {
      const message = (res.body as { error?: { message?: string } } | undefined)?.error?.message ?? `status ${res.status}`;
      throw new AzCliError(`The server did not give a login link: ${message}`);
    }
    io.stdout.write(`${url}\n`);
    return 0;
  } catch (err) {
    if (err instanceof AzCliError) {
      io.stderr.write(`ERROR: ${err.message}\n`);
      return 1;
    }
    throw err;
  }
}

export function registerDashboard(program: Command): void {
  program
    .command('dashboard')
    .description("Print a new one-time login link to the running server's web dashboard")
    .option('--home <dir>', 'aksemu home with endpoint.json (default: $AKSEMU_HOME or ~/.aksemu)')
    .action(async (opts: { home?: string }) => {
      process.exitCode = await runDashboard(opts, { env: process.env, stdout: process.stdout, stderr: process.stderr });
    });
}
