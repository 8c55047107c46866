// The netns data plane module, loaded on demand by dataplane/load.ts for `aksemu start --dataplane netns`.
export { NetnsDataplane, type NetnsDataplaneOptions } from './driver.js';
export { INTERNET } from './internet.js';
export { netnsUnsupportedReason } from './capability.js';
