// Golden tests of the date functions against the examples of
// https://learn.microsoft.com/azure/azure-resource-manager/templates/template-functions-date
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertInvalidVariable, outputValue, runPage } from './harness.js';
import { DATE_PAGE } from './pages/date.js';

describe('template functions: date (the reference examples)', () => runPage(DATE_PAGE));

describe('template functions: date errors and formats', () => {
  test('utcNow outside a parameter default is refused at validation', () =>
    assertInvalidVariable(
      '[utcNow()]',
      "The template function 'utcNow' is not expected at this location. The function can only be used in the default value of a parameter.",
    ));
  test('a duration that is not ISO 8601', () =>
    assertInvalidVariable("[dateTimeAdd('2020-04-07T14:53:14Z', '3 years')]", 'expects its second parameter to be an ISO 8601 duration'));
  test('a base that is not a date', () => assertInvalidVariable("[dateTimeAdd('yesterday', 'P1D')]", "cannot parse 'yesterday' as a date and time"));
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
