// The registered providers and the route table. Matching is ARM's: literal segments compare
// case-insensitively, empty segments (`//`, a trailing `/`) are ignored, and a literal segment
// beats a parameter where two templates fit the same path.
import type { HttpMethod, Provider, Route } from './provider.js';
import type { OperationKind } from './lro.js';
import type { Store } from '../store/store.js';
import { idKey } from '../ids/compare.js';

type Segment = { literal: string } | { param: string };

interface CompiledRoute {
  route: Route;
  provider: Provider;
  segments: Segment[];
  /** One character per segment, '1' literal / '0' parameter: the larger string is more specific. */
  specificity: string;
}

type Match = { kind: 'route'; route: Route; provider: Provider; params: Record<string, string> } | { kind: 'method-not-allowed' } | { kind: 'none' };

/** The decoded, non-empty segments of a URL path. */
export function splitPath(pathname: string): string[] {
  return pathname
    .split('/')
    .filter((segment) => segment !== '')
    .map((segment) => {
      try {
        return decodeURIComponent(segment);
      } catch {
        return segment;
      }
    });
}

function compile(route: Route, provider: Provider): CompiledRoute {
  const segments: Segment[] = splitPath(route.path).map((part) => {
    const param = /^\{(\w+)\}$/.exec(part);
    return param ? { param: param[1]! } : { literal: idKey(part) };
  });
  const specificity = segments.map((seg) => ('literal' in seg ? '1' : '0')).join('');
  return { route, provider, segments, specificity };
}

function bind(compiled: CompiledRoute, segments: readonly string[]): Record<string, string> | undefined {
  if (compiled.segments.length !== segments.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < segments.length; i++) {
    const want = compiled.segments[i]!;
    const got = segments[i]!;
    if ('literal' in want) {
      if (want.literal !== idKey(got)) return undefined;
    } else {
      params[want.param] = got;
    }
  }
  return params;
}

/**
 * The resource type a route template serves: after the last literal `providers/{namespace}`, the segments at
 * even places (types; names and actions sit between and after them). Undefined for routes outside a provider.
 */
function typeOf(segments: readonly Segment[]): string | undefined {
  let at = -1;
  for (let i = 0; i + 1 < segments.length; i++) {
    const seg = segments[i]!;
    if ('literal' in seg && seg.literal === 'providers' && 'literal' in segments[i + 1]!) at = i;
  }
  if (at < 0) return undefined;
  const namespace = (segments[at + 1] as { literal: string }).literal;
  const types: string[] = [];
  for (let i = at + 2; i < segments.length; i += 2) {
    const seg = segments[i]!;
    if (!('literal' in seg)) return undefined;
    types.push(seg.literal);
  }
  return types.length > 0 ? idKey(`${namespace}/${types.join('/')}`) : undefined;
}

export class Registry {
  private readonly byNamespace = new Map<string, Provider>();
  private readonly routes: CompiledRoute[] = [];
  private readonly kinds = new Map<string, OperationKind>();
  /** `namespace/type[/child…]` of every route, without case: the resource types ARM knows (typeOf). */
  private readonly types = new Set<string>();

  add(provider: Provider): void {
    const key = idKey(provider.namespace);
    if (this.byNamespace.has(key)) throw new Error(`provider ${provider.namespace} is registered twice`);
    this.byNamespace.set(key, provider);
    for (const route of provider.routes) {
      const compiled = compile(route, provider);
      this.routes.push(compiled);
      const type = typeOf(compiled.segments);
      if (type) this.types.add(type);
    }
    for (const kind of provider.operationKinds ?? []) {
      if (this.kinds.has(kind.kind)) throw new Error(`operation kind ${kind.kind} is registered twice`);
      this.kinds.set(kind.kind, kind);
    }
  }

  provider(namespace: string): Provider | undefined {
    return this.byNamespace.get(idKey(namespace));
  }

  /** Whether a route serves the resource type `type` (`managedClusters/agentPools`) of `namespace`. */
  knowsType(namespace: string, type: string): boolean {
    return this.types.has(idKey(`${namespace}/${type}`));
  }

  operationKind(kind: string): OperationKind | undefined {
    return this.kinds.get(kind);
  }

  /** One provider's next slice of a resource group delete (Provider.deleteSliceOfResourceGroup); false when none is left. */
  deleteSliceOfResourceGroup(groupId: string, store: Store): boolean {
    for (const provider of this.byNamespace.values()) if (provider.deleteSliceOfResourceGroup?.(groupId, store)) return true;
    return false;
  }

  /** Runs every provider's resource-group delete hook (inside the caller's transaction). */
  onResourceGroupDelete(groupId: string, store: Store): void {
    for (const provider of this.byNamespace.values()) provider.onResourceGroupDelete?.(groupId, store);
  }

  match(method: HttpMethod, segments: readonly string[]): Match {
    let best: { compiled: CompiledRoute; params: Record<string, string> } | undefined;
    let pathMatched = false;
    for (const compiled of this.routes) {
      const params = bind(compiled, segments);
      if (!params) continue;
      pathMatched = true;
      if (compiled.route.method !== method) continue;
      if (!best || compiled.specificity > best.compiled.specificity) best = { compiled, params };
    }
    if (best) return { kind: 'route', route: best.compiled.route, provider: best.compiled.provider, params: best.params };
    return pathMatched ? { kind: 'method-not-allowed' } : { kind: 'none' };
  }
}
