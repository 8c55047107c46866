// One example run as a client would: set up what it refers to, send its request, follow the long-running
// operation, read the resource back, compare with the example's response. The kind of operation (kindOf: by
// method and path) says what is set up first and what is compared.
import type { HttpResult } from '../e2e/harness.js';
import { type ArmClient, errorLine } from './client.js';
import { describe, differences } from './compare.js';
import { type ExampleCase, expectedBody, requestPath } from './examples.js';
import { Instance, STAND_IN_LOCATION } from './instance.js';
import { idsIn, parseId, prefixesOf, Setup } from './setup.js';

export interface Outcome {
  pass: boolean;
  /** Why not, on one line: the refusal (status, code, message) or the first differences. */
  got?: string;
}

type OperationKind = 'create' | 'update' | 'read' | 'list' | 'delete' | 'action';

/** What the suite does for an operation: a PUT creates, a GET of a path ending in a name reads one resource … */
function kindOf(c: ExampleCase): OperationKind {
  const { method, path } = c.operation;
  if (method === 'PUT') return 'create';
  if (method === 'PATCH') return 'update';
  if (method === 'DELETE') return 'delete';
  if (method === 'POST') return 'action';
  return path.endsWith('}') ? 'read' : 'list';
}

/** A PUT example that answers only 200 (no 201) updates a resource that exists: a pool's update. So does one whose
 * body names only powerState (a pool's start or stop, which the examples also answer 201). */
function updates(c: ExampleCase, body: unknown): boolean {
  const properties = (body as { properties?: Record<string, unknown> } | undefined)?.properties;
  if (properties && Object.keys(properties).join() === 'powerState') return true;
  return c.example.responses['201'] === undefined && c.example.responses['200'] !== undefined;
}

function compare(expected: unknown, actual: unknown, list = false): Outcome {
  const diffs = differences(expected, actual, { list });
  return diffs.length === 0 ? { pass: true } : { pass: false, got: diffs.map(describe).join('; ') };
}

/** Runs the example as case number `index` (its groups are named after it), and deletes what it made. */
export async function runCase(client: ArmClient, subscription: string, c: ExampleCase, index: number): Promise<Outcome> {
  const exampleParameters = c.example.parameters;
  const instance = new Instance(subscription, String(exampleParameters.subscriptionId ?? ''), `e${index}`);
  const parameters = instance.toServer(exampleParameters) as Record<string, unknown>;
  parameters.subscriptionId = subscription;
  if (typeof parameters.resourceGroupName === 'string') parameters.resourceGroupName = instance.group(String(exampleParameters.resourceGroupName));
  const apiVersion = String(parameters['api-version']);
  const path = requestPath(c.operation.path, parameters);
  const body = c.operation.bodyParameter ? parameters[c.operation.bodyParameter] : undefined;
  const expected = expectedBody(c.example);
  const location = String((body as { location?: unknown } | undefined)?.location ?? STAND_IN_LOCATION);
  const setup = new Setup(client, subscription, apiVersion, location);
  try {
    return await runOne(client, c, instance, setup, { path, apiVersion, body, expected });
  } finally {
    await setup.cleanUp();
  }
}

interface Request {
  path: string;
  apiVersion: string;
  body: unknown;
  expected: unknown;
}

async function runOne(client: ArmClient, c: ExampleCase, instance: Instance, setup: Setup, { path, apiVersion, body, expected }: Request): Promise<Outcome> {
  const kind = kindOf(c);
  try {
    for (const group of instance.actualGroups()) await setup.group(group);
    const target = kind === 'list' || kind === 'action' ? undefined : path;
    if (kind === 'read') await setup.seed(target!, apiVersion, instance.toServer(expected) ?? {});
    // An update (PATCH of tags) starts from the resource it shows without what the request sets.
    else if (kind === 'update') await setup.seed(target!, apiVersion, without(instance.toServer(expected), Object.keys(body ?? {})));
    else if (kind === 'list') {
      const items = (instance.toServer(expected) as { value?: { id?: string; name?: string }[] } | undefined)?.value ?? [];
      await setup.ensure(path.replace(/\/[^/]+$/, ''), items.flatMap(prefixesOf));
      await setup.ensureAncestor(path);
      for (const item of items) {
        // Some examples give an item the collection's id; its name under the list's path is the resource.
        const id = item.id && parseId(item.id) ? item.id : item.name ? `${path}/${item.name}` : undefined;
        if (id) await setup.seed(id, apiVersion, item);
      }
    } else if (kind === 'delete' || (kind === 'create' && updates(c, body))) await setup.ensure(target!);
    else if (kind === 'action') await setup.ensureAncestor(path);
    else await setup.ensure(path.replace(/\/[^/]+\/[^/]+$/, ''), prefixesOf(body));
    for (const ref of new Set(idsIn(body))) await setup.ensure(ref);
  } catch (err) {
    return { pass: false, got: (err as Error).message };
  }

  const res = await client.send(c.operation.method, path, apiVersion, body);
  if (res.status >= 400) return { pass: false, got: errorLine(res) };
  const end = await client.settle(res);
  if (end.failed) return { pass: false, got: end.failed };

  switch (kind) {
    case 'create':
    case 'update': {
      const back = await client.send('GET', path, apiVersion);
      if (back.status !== 200) return { pass: false, got: `final GET: ${errorLine(back)}` };
      return compare(expected, instance.toExample(back.json));
    }
    case 'delete': {
      const back = await client.send('GET', path, apiVersion);
      return back.status === 404 ? { pass: true } : { pass: false, got: `final GET after DELETE: ${back.status}` };
    }
    default:
      return compare(expected, instance.toExample(finalBody(instance, res, end.result)), kind === 'list');
  }
}

function without(value: unknown, members: string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries((value as Record<string, unknown> | undefined) ?? {}).filter(([k]) => !members.includes(k)));
}

/** The action's answer, or a list's items in this case's groups (other cases' resources share the subscription). */
function finalBody(instance: Instance, res: HttpResult, result?: HttpResult): unknown {
  const json = (result ?? res).json;
  if (!Array.isArray(json?.value)) return json;
  return { ...json, value: json.value.filter((item: { id?: unknown }) => typeof item?.id !== 'string' || instance.owns(item.id)) };
}
