// The resource providers a server serves. A new provider is one more entry here.
import type { Provider } from '../arm/provider.js';
import { authorizationProvider } from './authorization/index.js';
import { computeProvider } from './compute/index.js';
import { containerServiceProvider } from './containerservice/index.js';
import { networkProvider } from './network/index.js';
import { resourcesProvider } from './resources/index.js';

export function defaultProviders(): Provider[] {
  return [resourcesProvider(), networkProvider(), authorizationProvider(), containerServiceProvider(), computeProvider()];
}
