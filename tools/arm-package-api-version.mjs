// The api-version a published Azure SDK management package sends when the caller names none, read from its
// ES module build: for tools/gen-arm-api-versions.mjs (a package's default is a version clients send) and for
// the test that checks the served lists against the packages in node_modules.
//
// Both generations of the packages are read: autorest ones (dist-esm/src or dist/esm with models/parameters.js:
// each `apiVersionN` parameter's defaultValue, counted by the operation specs that use it) and modular TypeSpec
// ones (dist/esm/api/<group>/operations.js: each request's `"api%2Dversion": context.apiVersion ?? "<v>"`). A
// package may send another version for a few operations (arm-network's 2018-10-01 web categories), so the
// default is the version most of its requests send; `group` narrows the count to one operation group (the file
// operations/<group>.js or api/<group>/operations.js), for packages with one version per group
// (@azure/arm-authorization 9).

import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

function esmBase(pkg) {
  for (const base of [join(pkg, 'dist', 'esm'), join(pkg, 'dist-esm', 'src')]) if (existsSync(base)) return base;
  throw new Error(`${pkg}: no ES module build (dist/esm or dist-esm/src)`);
}

function count(tally, version, n = 1) {
  tally.set(version, (tally.get(version) ?? 0) + n);
}

/** version → how many requests send it, in an autorest build. */
function autorestTally(base, group) {
  const params = readFileSync(join(base, 'models', 'parameters.js'), 'utf8');
  const defaults = new Map();
  for (const m of params.matchAll(/^export const (apiVersion\d*) = \{[\s\S]*?defaultValue: "([^"]+)"/gm)) defaults.set(m[1], m[2]);
  const dir = join(base, 'operations');
  const files = group ? [`${group}.js`] : readdirSync(dir).filter((f) => f.endsWith('.js'));
  const tally = new Map();
  for (const f of files) {
    const text = readFileSync(join(dir, f), 'utf8');
    for (const m of text.matchAll(/Parameters\.(apiVersion\d*)\b/g)) if (defaults.has(m[1])) count(tally, defaults.get(m[1]));
  }
  return tally;
}

/** version → how many requests send it, in a modular build. */
function modularTally(base, group) {
  const api = join(base, 'api');
  const groups = group ? [group] : readdirSync(api).filter((g) => existsSync(join(api, g, 'operations.js')));
  const tally = new Map();
  for (const g of groups) {
    const text = readFileSync(join(api, g, 'operations.js'), 'utf8');
    for (const m of text.matchAll(/"api%2Dversion": (?:context\.apiVersion \?\? )?"([^"]+)"/g)) count(tally, m[1]);
  }
  return tally;
}

/** { name, version, apiVersion } of an unpacked package (its package/ folder, or its node_modules folder). */
export function packageApiVersion(pkg, group) {
  const meta = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8'));
  const base = esmBase(pkg);
  const tally = existsSync(join(base, 'models', 'parameters.js')) ? autorestTally(base, group) : modularTally(base, group);
  const ranked = [...tally].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  if (ranked.length === 0) throw new Error(`${meta.name}@${meta.version}: no api-version found${group ? ` for ${group}` : ''}`);
  if (ranked.length > 1 && ranked[0][1] === ranked[1][1]) throw new Error(`${meta.name}@${meta.version}: ${ranked[0][0]} and ${ranked[1][0]} tie`);
  return { name: meta.name, version: meta.version, apiVersion: ranked[0][0] };
}
