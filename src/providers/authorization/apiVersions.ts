// Microsoft.Authorization api-versions, newest first. az 2.45 sends 2020-04-01-preview for
// roleAssignments and 2018-01-01-preview for roleDefinitions (docs/clients.md §2.3);
// @azure/arm-authorization 9 sends 2022-04-01.
export const ROLE_ASSIGNMENT_API_VERSIONS: readonly string[] = [
  '2022-04-01',
  '2022-01-01-preview',
  '2021-04-01-preview',
  '2020-10-01-preview',
  '2020-08-01-preview',
  '2020-04-01-preview',
  '2020-03-01-preview',
  '2019-04-01-preview',
  '2018-09-01-preview',
  '2018-07-01',
  '2018-01-01-preview',
  '2017-10-01-preview',
  '2015-07-01',
];

export const ROLE_DEFINITION_API_VERSIONS: readonly string[] = [
  '2022-05-01-preview',
  '2022-04-01',
  '2018-07-01',
  '2018-01-01-preview',
  '2017-05-01',
  '2015-07-01',
];

export const AUTHORIZATION_API_VERSIONS: readonly string[] = [...new Set([...ROLE_ASSIGNMENT_API_VERSIONS, ...ROLE_DEFINITION_API_VERSIONS])].sort().reverse();
