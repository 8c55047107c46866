// Long-running operations followed as azure-mgmt-core's ARMPolling does for az (docs/clients.md §2.5):
// Azure-AsyncOperation first, then Location, then the resource's provisioningState (PUT/PATCH);
// the wait between polls is the last Retry-After (30 s when absent or 0) — or, finer, its retry-after-ms,
// which azure-core reads only when Retry-After is absent and aksemu az reads first (docs/clients.md §2.5);
// after Succeeded a PUT or PATCH is read back with a final GET of the resource, a DELETE returns nothing.
import { responseError, type ArmClient, type ArmResponse } from './arm-client.js';
import { AzCliError, formatOdataError, odataErrorOf } from './errors.js';
import { noProgress, type Progress } from './progress.js';

const TERMINAL = new Set(['succeeded', 'failed', 'canceled']);
const DEFAULT_DELAY_S = 30;

interface PollOptions {
  progress?: Progress;
  sleep?: (ms: number) => Promise<void>;
}

type Style = 'async-operation' | 'location' | 'body' | 'none';

function provisioningState(body: unknown): string | undefined {
  const props = (body as { properties?: { provisioningState?: unknown } } | undefined)?.properties;
  return typeof props?.provisioningState === 'string' ? props.provisioningState : undefined;
}

/**
 * azure-core's _extract_delay: Retry-After seconds or HTTP date; missing or 0 means the default. The
 * milliseconds headers azure-core knows (retry-after-ms, x-ms-retry-after-ms) come first here: a short
 * operation is then seen done at its first poll, not a whole second later.
 */
export function retryAfterMs(res: ArmResponse): number {
  for (const name of ['retry-after-ms', 'x-ms-retry-after-ms']) {
    const ms = Number(res.headers[name]);
    if (res.headers[name] !== undefined && Number.isFinite(ms) && ms > 0) return ms;
  }
  const value = res.headers['retry-after'];
  if (value !== undefined) {
    const seconds = Number(value);
    if (Number.isFinite(seconds)) {
      if (seconds > 0) return seconds * 1000;
    } else {
      const at = Date.parse(value);
      if (!Number.isNaN(at)) return Math.max(0, at - Date.now());
    }
  }
  return DEFAULT_DELAY_S * 1000;
}

function failure(res: ArmResponse): AzCliError {
  const odata = odataErrorOf(res.body);
  return new AzCliError(odata ? formatOdataError(odata) : 'Operation failed or canceled');
}

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Follows the operation the initial response started; returns the final resource body (PUT/PATCH),
 * the last Location body, or undefined (DELETE).
 */
export async function pollLro(client: ArmClient, method: string, resourceUrl: string, initial: ArmResponse, options: PollOptions = {}): Promise<unknown> {
  const sleep = options.sleep ?? realSleep;
  const progress = options.progress ?? noProgress;
  const asyncUrl = initial.headers['azure-asyncoperation'];
  const locationUrl = initial.headers['location'];
  let style: Style;
  let status: string;
  if (asyncUrl) {
    style = 'async-operation';
    status = 'InProgress';
  } else if (locationUrl) {
    style = 'location';
    status = initial.status === 202 ? 'InProgress' : 'Succeeded';
  } else if (method === 'PUT' || method === 'PATCH') {
    style = 'body';
    status = initial.status === 202 ? 'InProgress' : (provisioningState(initial.body) ?? (initial.status === 201 ? 'InProgress' : 'Succeeded'));
  } else {
    style = 'none';
    status = 'Succeeded';
  }

  let last = initial;
  progress.start();
  try {
    while (!TERMINAL.has(status.toLowerCase())) {
      await sleep(retryAfterMs(last));
      const url = style === 'async-operation' ? asyncUrl! : style === 'location' ? locationUrl! : resourceUrl;
      last = await client.raw('GET', url);
      if (last.status < 200 || last.status >= 300) throw responseError(last);
      if (style === 'async-operation') {
        const s = (last.body as { status?: unknown } | undefined)?.status;
        if (typeof s !== 'string') throw new AzCliError('No status found in body');
        status = s;
      } else if (style === 'location') {
        status = last.status === 202 ? 'InProgress' : 'Succeeded';
      } else {
        status = last.status === 202 ? 'InProgress' : (provisioningState(last.body) ?? 'Succeeded');
      }
    }
    if (status.toLowerCase() !== 'succeeded') throw failure(last);

    if (style === 'async-operation') {
      const resourceLocation = (last.body as { resourceLocation?: unknown } | undefined)?.resourceLocation;
      let finalUrl: string | undefined;
      if (typeof resourceLocation === 'string') finalUrl = resourceLocation;
      else if (method === 'PUT' || method === 'PATCH') finalUrl = resourceUrl;
      else if (method === 'POST' && locationUrl) finalUrl = locationUrl;
      if (finalUrl === undefined) return undefined;
      const final = await client.raw('GET', finalUrl);
      if (final.status !== 200) throw responseError(final);
      return final.body;
    }
    if (method === 'DELETE') return undefined;
    return last.body;
  } finally {
    progress.stop();
  }
}
