// Where a test finds another project's files (Calico's and flannel's manifests, Cilium's chart, the REST spec
// examples). They are never committed (test/fixtures/<project>/SOURCE.md says why): a developer copies them, byte
// for byte, into the git-ignored test/fixtures/<project>/, and a checkout that has the workplace's shared folder
// beside it finds the same layout in its fixtures folder (SHARED_FIXTURES). A lone clone has neither, and the tests
// that need them skip, naming the path they looked for.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root (tests run from dist/test/, two levels under it). */
const REPO = fileURLToPath(new URL('../../', import.meta.url));
/** The workplace's copy, beside the repository (CI's checkout has it; a lone clone does not). */
export const SHARED_FIXTURES = resolve(REPO, '../shared/fixtures');

/** The folders searched, in order: the repository's own copy first. */
export function fixtureRoots(project: string): string[] {
  return [join(REPO, 'test', 'fixtures', project), join(SHARED_FIXTURES, project)];
}

/**
 * The path of `project`'s file or folder `rel` in the first root that has it; when none does, the path in the
 * repository's own copy, so a skip reason names where to put it.
 */
export function thirdPartyFile(project: string, ...rel: string[]): string {
  const candidates = fixtureRoots(project).map((root) => join(root, ...rel));
  return candidates.find((p) => existsSync(p)) ?? (candidates[0] as string);
}
