// The names that are the example's and not this server's: its subscription, its resource groups (each case gets
// its own groups, so cases run on one server without meeting), and placeholder locations ARM would refuse
// ("location1"). The request is rewritten onto this server's names, and what the server answers is rewritten back
// before it is compared, so the comparison sees the example's names where the example has them.
import { findRegion } from '../../src/arm/locations.js';

/** Where an example names a location no region has (location1), the request goes to this one. */
export const STAND_IN_LOCATION = 'eastus';

const SCOPE = /\/subscriptions\/([^/]+)(\/resourceGroups\/([^/]+))?/gi;

function literal(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function mapStrings(value: unknown, fn: (s: string) => string): unknown {
  if (typeof value === 'string') return fn(value);
  if (Array.isArray(value)) return value.map((v) => mapStrings(v, fn));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k.startsWith('/') ? fn(k) : k, mapStrings(v, fn)]));
  }
  return value;
}

export class Instance {
  /** Example group name (lower case) → the example's spelling and this case's group name. */
  private readonly groups = new Map<string, { example: string; actual: string }>();
  private readonly placeholders = new Set<string>();

  constructor(
    private readonly serverSubscription: string,
    private readonly exampleSubscription: string,
    private readonly suffix: string,
  ) {}

  group(name: string): string {
    const key = name.toLowerCase();
    if (!this.groups.has(key)) this.groups.set(key, { example: name, actual: `${name}-${this.suffix}` });
    return this.groups.get(key)!.actual;
  }

  /** This case's resource groups (every group the request named), to create before it runs. */
  actualGroups(): string[] {
    return [...this.groups.values()].map((g) => g.actual);
  }

  /** Whether an id is in one of this case's groups. */
  owns(id: string): boolean {
    const lower = id.toLowerCase();
    return [...this.groups.values()].some((g) => lower.includes(`/resourcegroups/${g.actual.toLowerCase()}/`));
  }

  /** A location the server knows: the example's, or the stand-in for a placeholder. */
  location(name: string): string {
    if (findRegion(name)) return name;
    this.placeholders.add(name);
    return STAND_IN_LOCATION;
  }

  /** The example's request value (path parameters or body) on this server's names. */
  toServer(value: unknown): unknown {
    const renamed = mapStrings(value, (s) =>
      s.replace(SCOPE, (_m, _sub: string, groupPart: string | undefined, group: string | undefined) =>
        groupPart
          ? `/subscriptions/${this.serverSubscription}${groupPart.slice(0, -group!.length)}${this.group(group!)}`
          : `/subscriptions/${this.serverSubscription}`,
      ),
    );
    return this.locations(renamed);
  }

  private locations(value: unknown): unknown {
    if (Array.isArray(value)) return value.map((v) => this.locations(v));
    if (!value || typeof value !== 'object') return value;
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, k === 'location' && typeof v === 'string' ? this.location(v) : this.locations(v)]));
  }

  /** The server's answer on the example's names (subscription, groups, placeholder locations). */
  toExample(value: unknown): unknown {
    const rules: [RegExp, string][] = [[new RegExp(literal(this.serverSubscription), 'gi'), this.exampleSubscription]];
    for (const { example, actual } of this.groups.values()) rules.push([new RegExp(literal(actual), 'gi'), example]);
    for (const placeholder of this.placeholders) rules.push([new RegExp(`(^|[_/.-])${STAND_IN_LOCATION}($|[_/.-])`, 'g'), `$1${placeholder}$2`]);
    return mapStrings(value, (s) => {
      let out = s;
      for (const [pattern, replacement] of rules) out = out.replace(pattern, replacement);
      return out;
    });
  }
}
