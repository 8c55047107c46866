// Microsoft.Authorization api-versions, newest first: generated data (./api-versions.json, written by
// tools/gen-arm-api-versions.mjs from the REST specs' role assignment and role definition files and
// @azure/arm-authorization's defaults). az 2.45 sends 2020-04-01-preview for roleAssignments and
// 2018-01-01-preview for roleDefinitions (docs/clients.md §2.3); @azure/arm-authorization 9 sends 2022-04-01.
import data from './api-versions.json' with { type: 'json' };

export const ROLE_ASSIGNMENT_API_VERSIONS: readonly string[] = data.lists.roleAssignments.versions;

export const ROLE_DEFINITION_API_VERSIONS: readonly string[] = data.lists.roleDefinitions.versions;

export const AUTHORIZATION_API_VERSIONS: readonly string[] = [...new Set([...ROLE_ASSIGNMENT_API_VERSIONS, ...ROLE_DEFINITION_API_VERSIONS])].sort().reverse();
