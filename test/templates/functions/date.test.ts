// Golden tests of the date functions against the examples of
// https://learn.microsoft.com/azure/azure-resource-manager/templates/template-functions-date
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { deployOutputs, outputValue, runPage, template } from './harness.js';
import { DATE_PAGE } from './pages/date.js';

describe('template functions: date (the reference examples)', () => runPage(DATE_PAGE));

describe('template functions: date errors and formats', () => {
  test('an ISO 8601 base keeps its form; a format writes .NET text', () => {
    assert.equal(outputValue("[dateTimeAdd('2020-04-07T14:53:14Z', 'PT1H')]"), '2020-04-07T15:53:14Z');
    assert.equal(outputValue("[dateTimeAdd('20200407T145314Z', 'P1M')]"), '20200507T145314Z');
    assert.equal(outputValue("[dateTimeAdd('2020-01-31T00:00:00Z', 'P1M', 'yyyy-MM-dd')]"), '2020-02-29');
    assert.equal(outputValue("[dateTimeAdd('2020-04-07T14:53:14Z', 'P1D', 'u')]"), '2020-04-08 14:53:14Z');
    assert.equal(outputValue("[dateTimeAdd('2020-04-07T14:53:14Z', 'P1W', 'dddd, MMMM d, yyyy h:mm tt')]"), 'Tuesday, April 14, 2020 2:53 PM');
  });
  test('dateTimeToEpoch and dateTimeFromEpoch are inverse', () => {
    assert.equal(outputValue("[dateTimeToEpoch('2023-05-02T15:16:13Z')]", 'int'), 1683040573);
    assert.equal(outputValue('[dateTimeFromEpoch(0)]'), '1970-01-01T00:00:00Z');
  });
});

describe('template functions: dates and numbers parse in linear time', () => {
  // A parameter carries a value of a megabyte; each pattern is checked against runs of one character.
  const M = 1 << 20;
  const cases: Array<[string, string]> = [
    [`${'1'.repeat(M)}x`, "[dateTimeToEpoch(parameters('p'))]"],
    [`2020-01-01${' '.repeat(M)}x`, "[dateTimeToEpoch(parameters('p'))]"],
    [`P${'1'.repeat(M)}x`, "[dateTimeAdd('2020-01-01T00:00:00Z', parameters('p'))]"],
    ["'".repeat(M), "[dateTimeAdd('2020-01-01T00:00:00Z', 'P1D', parameters('p'))]"],
    [`${'1'.repeat(M)}x`, "[float(parameters('p'))]"],
  ];
  for (const [value, expression] of cases) {
    test(`${expression} of ${JSON.stringify(value.slice(0, 12))}… (${value.length} characters)`, () => {
      const started = performance.now();
      try {
        deployOutputs({
          template: template({ parameters: { p: { type: 'string' } }, outputs: { v: { type: 'string', value: expression } } }),
          parameters: { p: value },
        });
      } catch {
        // refused is fine: only the time matters here
      }
      assert.ok(performance.now() - started < 1500, `took ${Math.round(performance.now() - started)} ms`);
    });
  }
});
