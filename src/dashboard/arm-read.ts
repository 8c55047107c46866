// ARM bodies as a client's GET at the newest stable api-version returns them (docs/dashboard.md §3): the route runs
// in process, as the deployment engine calls providers (src/arm/invoke.ts), on behalf of aksemu's own principal.
import { randomUUID } from 'node:crypto';
import { ArmError } from '../arm/errors.js';
import type { Identity } from '../arm/identity.js';
import { invokeRoute } from '../arm/invoke.js';
import type { Lro } from '../arm/lro.js';
import type { Registry } from '../arm/registry.js';
import type { Store } from '../store/store.js';
import { notFound } from './errors.js';

export interface ArmReader {
  /** The resource's body, or NotFound. */
  get(id: string): Record<string, unknown>;
}

/** The newest api-version that is not a preview. */
export function newestStable(versions: readonly string[]): string | undefined {
  return versions
    .filter((v) => !/preview/i.test(v))
    .sort()
    .at(-1);
}

export function armReader(deps: { store: Store; registry: Registry; lro: Lro; identity: Identity; baseUrl: () => string }): ArmReader {
  const { store, registry, lro, identity } = deps;
  return {
    get(id) {
      const namespace = /\/providers\/([^/]+)\//i.exec(id)?.[1] ?? '';
      const provider = registry.provider(namespace);
      const apiVersion = provider ? newestStable(provider.apiVersions) : undefined;
      if (!apiVersion) throw notFound(`No resource ${id.slice(0, 300)}.`);
      try {
        const res = invokeRoute(
          {
            requestId: randomUUID(),
            baseUrl: deps.baseUrl(),
            principal: { appId: identity.clientId, objectId: identity.servicePrincipalObjectId, tenantId: identity.tenantId },
            identity,
            store,
            lro,
            registry,
            loose: false,
            strict: false,
          },
          { method: 'GET', path: id, apiVersion },
        );
        if (res.status !== 200) throw notFound(`No resource ${id.slice(0, 300)}.`);
        return res.body as Record<string, unknown>;
      } catch (e) {
        if (e instanceof ArmError && e.status < 500) throw notFound(e.message);
        throw e;
      }
    },
  };
}
