// The Microsoft.Network api-versions aksemu serves, newest first (NoRegisteredProviderFound lists them):
// generated data (./api-versions.json, written by tools/gen-arm-api-versions.mjs from the REST specs' version
// folders and the default of every published @azure/arm-network major, through 39.0.0's 2026-01-01). az 2.45's
// AAZ network commands send 2022-01-01 (docs/clients.md §2.3); the resource shapes did not change in ways aksemu
// models, so every published version is accepted.
import data from './api-versions.json' with { type: 'json' };

export const NETWORK_API_VERSIONS: readonly string[] = data.lists.all.versions;
