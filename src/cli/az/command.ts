// What one `aksemu az …` command is (its az name, arguments, table transformer, action) and what it
// gets to run: the parsed arguments, a lazily connected ARM client, warnings, confirmation, LRO polling.
import type { ArmClient, ArmRequest } from './arm-client.js';
import type { ArgDef, ParsedArgs } from './args.js';
import { pollLro } from './lro-poller.js';
import type { TableTransformer } from './output.js';
import type { Progress } from './progress.js';

export interface CommandDef {
  /** az's name without "az", e.g. "aks nodepool add". */
  name: string;
  help: string;
  args: ArgDef[];
  table?: TableTransformer;
  run(ctx: Invocation, args: ParsedArgs): Promise<unknown>;
}

export interface Invocation {
  /** "az aks create", for argparse-style messages. */
  prog: string;
  client(): ArmClient;
  subscriptionId(): string;
  /** The aksemu home (where endpoint.json is). */
  home(): string;
  warn(message: string): void;
  /** az's confirmation: true to go on; throws when it cannot ask or the answer is no. */
  confirm(message: string, yes: boolean): Promise<void>;
  progress(): Progress;
  sleep(ms: number): Promise<void>;
}

/** Sends the request, then (unless --no-wait) follows the operation to its end. */
export async function longRunning(ctx: Invocation, req: ArmRequest, noWait: boolean): Promise<unknown> {
  const client = ctx.client();
  const initial = await client.send(req);
  if (noWait) return undefined;
  return pollLro(client, req.method, client.url(req.path, req.apiVersion, req.query), initial, {
    progress: ctx.progress(),
    sleep: (ms) => ctx.sleep(ms),
  });
}
