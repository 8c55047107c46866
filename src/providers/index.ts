// The resource providers a server serves. A new provider is one more entry here.
import type { Provider } from '../arm/provider.js';
import { authorizationProvider } from './authorization/index.js';
import { computeProvider } from './compute/index.js';
import type { KubeconfigIssuer } from './containerservice/credentials.js';
import { containerServiceProvider } from './containerservice/index.js';
import { managedIdentityProvider } from './managedidentity/index.js';
import { networkProvider } from './network/index.js';
import { resourcesProvider } from './resources/index.js';

/** What providers need from the layers above them, wired in by the server (docs/architecture.md §4). */
interface ProviderServices {
  kubeconfigs?: KubeconfigIssuer;
}

export function defaultProviders(services: ProviderServices = {}): Provider[] {
  return [resourcesProvider(), networkProvider(), authorizationProvider(), containerServiceProvider(services), computeProvider(), managedIdentityProvider()];
}
