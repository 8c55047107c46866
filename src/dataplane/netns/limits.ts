// What the netns data plane can build, checked before anything is built: IPv4 prefixes only, and no more
// ports on a Linux bridge than the kernel takes.
import { Cidr } from '../../net/ip.js';

/** A Linux bridge takes at most 1023 ports ("Exchange full" after that; docs/dataplane.md §7.2). */
export const BRIDGE_PORT_LIMIT = 1023;

/** An IPv4 prefix; the error names `what`. */
export function parseCidr(text: string, what: string): Cidr {
  try {
    return Cidr.parse(text, { family: 4 });
  } catch (e) {
    throw new Error(`${what}: ${(e as Error).message}`);
  }
}
