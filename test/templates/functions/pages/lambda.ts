// https://learn.microsoft.com/azure/azure-resource-manager/templates/template-functions-lambda
// The examples of the lambda functions page and the values it documents. The page's groupBy and
// mapValues, and the lambdas that take the element's index (filter, map, reduce), are shown by the
// Bicep page (https://learn.microsoft.com/azure/azure-resource-manager/bicep/bicep-functions-lambda):
// they are written here as the ARM expressions Bicep compiles them to.
import { type Page, outputs, template } from '../harness.js';

const dog = (name: string, age: number, interests: string[]) => ({ name, age, interests });
const DOGS = [dog('Evie', 5, ['Ball', 'Frisbee']), dog('Casper', 3, ['Other dogs']), dog('Indy', 2, ['Butter']), dog('Kira', 8, ['Rubs'])];
const [EVIE, CASPER, INDY, KIRA] = DOGS as [ReturnType<typeof dog>, ReturnType<typeof dog>, ReturnType<typeof dog>, ReturnType<typeof dog>];

/** A template over the page's dogs. */
function dogs(outputsSection: Record<string, unknown>, variables: Record<string, unknown> = {}): Record<string, unknown> {
  return template({ variables: { dogs: DOGS, ...variables }, outputs: outputsSection });
}

const byName = Object.fromEntries(DOGS.map((d) => [d.name, d]));

export const LAMBDA_PAGE: Page = {
  url: 'https://learn.microsoft.com/azure/azure-resource-manager/templates/template-functions-lambda',
  examples: [
    {
      name: 'filter',
      template: dogs(
        outputs('array', {
          oldDogs: "[filter(variables('dogs'), lambda('dog', greaterOrEquals(lambdaVariables('dog').age, 5)))]",
          dogNameIndex:
            "[filter(variables('dogs'), lambda('val', 'i', and(less(lambdaVariables('i'), 2), equals(substring(lambdaVariables('val').name, 0, 1), 'C'))))]",
        }),
      ),
      outputs: { oldDogs: [EVIE, KIRA], dogNameIndex: [CASPER] },
    },
    {
      name: 'filter of a loop variable',
      template: template({
        variables: { copy: [{ name: 'itemForLoop', count: '[length(range(0, 10))]', input: "[range(0, 10)[copyIndex('itemForLoop')]]" }] },
        outputs: outputs('array', {
          filteredLoop: "[filter(variables('itemForLoop'), lambda('i', greater(lambdaVariables('i'), 5)))]",
          isEven: "[filter(range(0, 10), lambda('i', equals(0, mod(lambdaVariables('i'), 2))))]",
        }),
      }),
      outputs: { filteredLoop: [6, 7, 8, 9], isEven: [0, 2, 4, 6, 8] },
    },
    {
      name: 'groupBy',
      template: template({
        variables: { inputArray: ['foo', 'bar', 'baz'] },
        outputs: outputs('object', { outObject: "[groupBy(variables('inputArray'), lambda('x', substring(lambdaVariables('x'), 0, 1)))]" }),
      }),
      outputs: { outObject: { f: ['foo'], b: ['bar', 'baz'] } },
    },
    {
      name: 'map',
      template: dogs(
        outputs('array', {
          dogNames: "[map(variables('dogs'), lambda('dog', lambdaVariables('dog').name))]",
          sayHi: "[map(variables('dogs'), lambda('dog', format('Hello {0}!', lambdaVariables('dog').name)))]",
          mapObject:
            "[map(range(0, length(variables('dogs'))), lambda('i', createObject('i', lambdaVariables('i'), 'dog', variables('dogs')[lambdaVariables('i')].name, 'greeting', format('Ahoy, {0}!', variables('dogs')[lambdaVariables('i')].name))))]",
          mapArrayIndex: "[map(variables('dogs'), lambda('x', 'i', createObject('index', lambdaVariables('i'), 'val', lambdaVariables('x').name)))]",
        }),
      ),
      outputs: {
        dogNames: ['Evie', 'Casper', 'Indy', 'Kira'],
        sayHi: ['Hello Evie!', 'Hello Casper!', 'Hello Indy!', 'Hello Kira!'],
        mapObject: DOGS.map((d, i) => ({ i, dog: d.name, greeting: `Ahoy, ${d.name}!` })),
        mapArrayIndex: DOGS.map((d, i) => ({ index: i, val: d.name })),
      },
    },
    {
      name: 'mapValues',
      template: template({
        variables: { inputObject: { foo: 'foo', bar: 'bar' } },
        outputs: outputs('object', { mapObject: "[mapValues(variables('inputObject'), lambda('val', toUpper(lambdaVariables('val'))))]" }),
      }),
      outputs: { mapObject: { foo: 'FOO', bar: 'BAR' } },
    },
    {
      name: 'reduce',
      template: dogs(
        outputs('int', {
          totalAge: "[reduce(variables('ages'), 0, lambda('cur', 'next', add(lambdaVariables('cur'), lambdaVariables('next'))))]",
          totalAgeAdd1: "[reduce(variables('ages'), 1, lambda('cur', 'next', add(lambdaVariables('cur'), lambdaVariables('next'))))]",
          oddAge:
            "[reduce(variables('ages'), 0, lambda('cur', 'next', 'i', if(equals(mod(lambdaVariables('i'), 2), 0), add(lambdaVariables('cur'), lambdaVariables('next')), lambdaVariables('cur'))))]",
        }),
        { ages: "[map(variables('dogs'), lambda('dog', lambdaVariables('dog').age))]" },
      ),
      outputs: { totalAge: 18, totalAgeAdd1: 19, oddAge: 7 },
    },
    {
      name: 'reduce to a union of objects',
      template: template({
        outputs: outputs('object', {
          reduceObjectUnion:
            "[reduce(createArray(createObject('foo', 123), createObject('bar', 456), createObject('baz', 789)), createObject(), lambda('cur', 'next', union(lambdaVariables('cur'), lambdaVariables('next'))))]",
        }),
      }),
      outputs: { reduceObjectUnion: { foo: 123, bar: 456, baz: 789 } },
    },
    {
      name: 'sort',
      template: dogs(outputs('array', { dogsByAge: "[sort(variables('dogs'), lambda('a', 'b', less(lambdaVariables('a').age, lambdaVariables('b').age)))]" })),
      outputs: { dogsByAge: [INDY, CASPER, EVIE, KIRA] },
    },
    {
      name: 'toObject with a key',
      template: dogs(outputs('object', { dogsObject: "[toObject(variables('dogs'), lambda('entry', lambdaVariables('entry').name))]" })),
      outputs: { dogsObject: byName },
    },
    {
      name: 'toObject with a key and the value itself',
      template: dogs(
        outputs('object', {
          dogsObject: "[toObject(variables('dogs'), lambda('entry', lambdaVariables('entry').name), lambda('entry', lambdaVariables('entry')))]",
        }),
      ),
      outputs: { dogsObject: byName },
    },
    {
      name: 'toObject with a key and a value',
      template: template({
        variables: { dogs: DOGS.map(({ name, age, interests }) => ({ name, properties: { age, interests } })) },
        outputs: outputs('object', {
          dogsObject: "[toObject(variables('dogs'), lambda('entry', lambdaVariables('entry').name), lambda('entry', lambdaVariables('entry').properties))]",
        }),
      }),
      outputs: { dogsObject: Object.fromEntries(DOGS.map(({ name, age, interests }) => [name, { age, interests }])) },
    },
  ],
  invalid: [
    // a lambda outside the functions that take one
    ["[lambda('x', lambdaVariables('x'))]", "The template function 'lambda' is not expected at this location."],
    // lambdaVariables outside a lambda
    ["[lambdaVariables('x')]", "The template function 'lambdaVariables' is not expected at this location."],
    // a variable the lambda does not name
    ["[map(createArray(1), lambda('x', lambdaVariables('y')))]", "The lambda variable 'y' is not defined."],
    // filter's lambda must answer a boolean
    [
      "[filter(createArray(1), lambda('x', 1))]",
      "The lambda function given to the template language function 'filter' must return a boolean. It returned a value of type 'Integer'.",
    ],
    // a value where the lambda goes
    [
      '[map(createArray(1), 2)]',
      "The template language function 'map' expects its second parameter to be a lambda function. The provided value is of type 'Integer'.",
    ],
    // sort takes a lambda of two variables
    ["[sort(createArray(2, 1), lambda('a', true()))]", 'must have 2 lambda variables; it has 1.'],
  ],
};
