// The depth bound read from JSON text before any parser runs: brackets inside strings and comments
// do not count, and the error names where the first level too deep opens, as Newtonsoft does.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ArmError } from '../../src/arm/errors.js';
import { checkTextDepth } from '../../src/arm/jsonDepth.js';

function message(text: string, max = 3): string | undefined {
  try {
    checkTextDepth(text, max);
    return undefined;
  } catch (e) {
    assert.ok(e instanceof ArmError);
    return /'(The reader's .*)'\.$/.exec(e.message)![1];
  }
}

describe('checkTextDepth', () => {
  test('brackets in strings (escaped quotes too), single-quoted strings and comments are not levels', () => {
    assert.equal(
      message(`{"a":"[[[[{{{{", "b":"\\"[[[[", 'c':'{{{{', // [[[[
      /* {{{{ */ "d":[1]}`),
      undefined,
    );
  });

  test('the path and position of the level too deep, on the line it opens', () => {
    assert.equal(message('{"a":{"b":[1,{"c":{}}]}}'), "The reader's MaxDepth of 3 has been exceeded. Path 'a.b[1]', line 1, position 14.");
    assert.equal(
      message('{\n  template: {\n    resources: [\n      {}]}}'),
      "The reader's MaxDepth of 3 has been exceeded. Path 'template.resources[0]', line 4, position 7.",
    );
    assert.equal(message('[[[[]]]]'), "The reader's MaxDepth of 3 has been exceeded. Path '[0][0][0]', line 1, position 4.");
  });

  test('a million levels are refused at once, without parsing them', () => {
    const start = performance.now();
    assert.match(message('['.repeat(1_000_000), 64)!, /MaxDepth of 64/);
    assert.ok(performance.now() - start < 100);
  });
});
