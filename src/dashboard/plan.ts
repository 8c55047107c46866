// POST /ui/api/plan (docs/dashboard.md §3): `aksemu plan`'s flags as JSON, planned by the same code as the CLI
// (src/aks/plan-flags.ts), answered with what `aksemu plan -o json` prints and the picture `--format svg` draws.
import { NEWEST_STABLE_API_VERSION } from '../aks/api-versions.js';
import { CliUsageError } from '../aks/az-validators.js';
import { longFlagOf, PLAN_FLAG_SPECS, planInput, planOutcome, type PlanFlags } from '../aks/plan-flags.js';
import { renderPlanSvg, type PlanOutcome } from '../aks/plan-svg.js';
import { badRequest } from './errors.js';

type FlagType = 'string' | 'boolean' | 'list';

/** The flags `aksemu plan` takes (PLAN_FLAG_SPECS, the CLI's own list), without `--`, and what each holds. */
const FLAGS: Readonly<Record<string, FlagType>> = Object.fromEntries(
  PLAN_FLAG_SPECS.map((spec) => [longFlagOf(spec), spec.list ? 'list' : spec.flags.includes('<') ? 'string' : 'boolean']),
);

/** A flag's value is at most this long; a list has at most this many. */
const MAX_VALUE = 1024;
const MAX_LIST = 32;

/** `network-plugin` → `networkPlugin`, as commander names an option's value. */
const camel = (flag: string): string => flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

/** The request's flags as the CLI's parser would hand them over; a 400 naming the flag for anything else. */
export function planFlags(body: unknown): PlanFlags {
  const given = (body as { flags?: unknown } | null)?.flags;
  if (given === undefined) throw badRequest('The body is {"flags": {"<flag without -->": "<value>"}}.', 'flags');
  if (given === null || typeof given !== 'object' || Array.isArray(given)) throw badRequest('flags must be an object.', 'flags');
  const flags: Record<string, unknown> = { apiVersion: NEWEST_STABLE_API_VERSION };
  for (const [flag, value] of Object.entries(given)) {
    const type = Object.hasOwn(FLAGS, flag) ? FLAGS[flag] : undefined;
    const target = `flags.${flag.slice(0, 100)}`;
    if (type === undefined) throw badRequest(`unrecognized argument: --${flag.slice(0, 100)}`, target);
    if (type === 'boolean') {
      if (typeof value !== 'boolean') throw badRequest(`--${flag} takes no value: send true or false.`, target);
      if (value) flags[camel(flag)] = true;
    } else if (type === 'list') {
      const list = Array.isArray(value) ? value : [value];
      if (list.length > MAX_LIST || !list.every((v) => typeof v === 'string' && v.length <= MAX_VALUE))
        throw badRequest(`--${flag} takes a string or a list of at most ${MAX_LIST} strings.`, target);
      flags[camel(flag)] = list;
    } else {
      if (typeof value !== 'string' || value.length > MAX_VALUE) throw badRequest(`--${flag} takes a string of at most ${MAX_VALUE} characters.`, target);
      flags[camel(flag)] = value;
    }
  }
  return flags as unknown as PlanFlags;
}

export function planView(body: unknown): { plan: PlanOutcome; svg: string } {
  const flags = planFlags(body);
  let plan: PlanOutcome;
  try {
    plan = planOutcome(planInput(flags));
  } catch (e) {
    if (e instanceof CliUsageError) throw badRequest(e.message);
    throw e;
  }
  // What `-o json` prints: the same object through JSON.
  return { plan: JSON.parse(JSON.stringify(plan)) as PlanOutcome, svg: renderPlanSvg(plan) };
}
