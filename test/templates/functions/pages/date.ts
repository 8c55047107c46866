// https://learn.microsoft.com/azure/azure-resource-manager/templates/template-functions-date
// The examples of the date functions page (Azure/azure-docs-json-samples,
// azure-resource-manager/functions/date) and the values its output tables document. utcNow's
// values change with every deployment: they are matched by their form.
import { type Page, outputs, template } from '../harness.js';

const epochTemplate = template({
  parameters: { convertedEpoch: { type: 'int', defaultValue: "[dateTimeToEpoch(dateTimeAdd(utcNow(), 'P1Y'))]" } },
  variables: { convertedDatetime: "[dateTimeFromEpoch(parameters('convertedEpoch'))]" },
  outputs: {
    epochValue: { type: 'int', value: "[parameters('convertedEpoch')]" },
    datetimeValue: { type: 'string', value: "[variables('convertedDatetime')]" },
  },
});

export const DATE_PAGE: Page = {
  url: 'https://learn.microsoft.com/azure/azure-resource-manager/templates/template-functions-date',
  examples: [
    {
      // "When the preceding template is deployed with a base time of 2020-04-07 14:53:14Z"
      name: 'dateTimeAdd',
      template: template({
        parameters: { baseTime: { type: 'string', defaultValue: "[utcNow('u')]" } },
        variables: {
          add3Years: "[dateTimeAdd(parameters('baseTime'), 'P3Y')]",
          subtract9Days: "[dateTimeAdd(parameters('baseTime'), '-P9D')]",
          add1Hour: "[dateTimeAdd(parameters('baseTime'), 'PT1H')]",
        },
        outputs: {
          add3YearsOutput: { value: "[variables('add3Years')]", type: 'string' },
          subtract9DaysOutput: { value: "[variables('subtract9Days')]", type: 'string' },
          add1HourOutput: { value: "[variables('add1Hour')]", type: 'string' },
        },
      }),
      parameters: { baseTime: '2020-04-07 14:53:14Z' },
      outputs: { add3YearsOutput: '4/7/2023 2:53:14 PM', subtract9DaysOutput: '3/29/2020 2:53:14 PM', add1HourOutput: '4/7/2020 3:53:14 PM' },
    },
    {
      // The page's run: "datetimeValue 2023-05-02T15:16:13Z, epochValue 1683040573", given here as the parameter.
      name: 'dateTimeFromEpoch and dateTimeToEpoch',
      template: epochTemplate,
      parameters: { convertedEpoch: 1683040573 },
      outputs: { datetimeValue: '2023-05-02T15:16:13Z', epochValue: 1683040573 },
    },
    {
      name: 'dateTimeToEpoch of utcNow a year on',
      template: epochTemplate,
      outputs: { datetimeValue: /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/, epochValue: /^\d{10}$/ },
    },
    {
      // "varies for each deployment but will be similar to: 20190305T175318Z, 03/05/2019, 3 5"
      name: 'utcNow',
      template: template({
        parameters: {
          utcValue: { type: 'string', defaultValue: '[utcNow()]' },
          utcShortValue: { type: 'string', defaultValue: "[utcNow('d')]" },
          utcCustomValue: { type: 'string', defaultValue: "[utcNow('M d')]" },
        },
        outputs: outputs('string', {
          utcOutput: "[parameters('utcValue')]",
          utcShortOutput: "[parameters('utcShortValue')]",
          utcCustomOutput: "[parameters('utcCustomValue')]",
        }),
      }),
      outputs: { utcOutput: /^\d{8}T\d{6}Z$/, utcShortOutput: /^\d{2}\/\d{2}\/\d{4}$/, utcCustomOutput: /^\d{1,2} \d{1,2}$/ },
    },
  ],
  invalid: [
    // utcNow outside a parameter default is refused at validation
    ['[utcNow()]', "The template function 'utcNow' is not expected at this location. The function can only be used in the default value of a parameter."],
    // a duration that is not ISO 8601
    ["[dateTimeAdd('2020-04-07T14:53:14Z', '3 years')]", 'expects its second parameter to be an ISO 8601 duration'],
    // a base that is not a date
    ["[dateTimeAdd('yesterday', 'P1D')]", "cannot parse 'yesterday' as a date and time"],
  ],
};
