// Microsoft.Authorization's errors. Wording from ARM responses seen in public logs where known; the
// ones marked "(aksemu)" are ours in ARM's style.
import { ArmError } from '../../arm/errors.js';

/** az treats exactly this message as success when it re-creates an assignment (docs/clients.md §3.4.3). */
export function roleAssignmentExists(): ArmError {
  return new ArmError(409, 'RoleAssignmentExists', 'The role assignment already exists.');
}

export function roleAssignmentNotFound(name: string): ArmError {
  return new ArmError(404, 'RoleAssignmentNotFound', `The role assignment '${name}' is not found.`);
}

export function invalidRoleAssignmentId(name: string): ArmError {
  return new ArmError(400, 'InvalidRoleAssignmentId', `The role assignment ID '${name}' is not valid. The role assignment ID must be a GUID.`);
}

export function roleDefinitionDoesNotExist(id: string, status = 400): ArmError {
  return new ArmError(status, 'RoleDefinitionDoesNotExist', `The specified role definition with ID '${id}' does not exist.`);
}

export function roleAssignmentUpdateNotPermitted(): ArmError {
  return new ArmError(400, 'RoleAssignmentUpdateNotPermitted', 'Tenant ID, application ID, principal ID, and scope are not allowed to be updated.');
}

/** (aksemu) principalId missing or not a GUID. */
export function invalidPrincipalId(value: unknown): ArmError {
  return new ArmError(
    400,
    'InvalidPrincipalId',
    `The principal ID '${String(value ?? '')}' is not valid. A principal ID must be a GUID.`,
    'properties.principalId',
  );
}

/** (aksemu) roleDefinitionId missing. */
export function missingRoleDefinitionId(): ArmError {
  return new ArmError(400, 'InvalidRoleDefinitionId', 'The role definition ID is required in properties.roleDefinitionId.', 'properties.roleDefinitionId');
}

/** (aksemu) principalType outside its enumeration. */
export function invalidPrincipalType(value: string): ArmError {
  return new ArmError(
    400,
    'InvalidPrincipalType',
    `The principal type '${value}' is not valid. Valid values are User, Group, ServicePrincipal, ForeignGroup, Device.`,
    'properties.principalType',
  );
}

/** (aksemu) A $filter this server does not evaluate. */
export function unsupportedFilter(filter: string): ArmError {
  return new ArmError(
    400,
    'UnsupportedQuery',
    `The filter '${filter}' is not supported. Supported filters are atScope(), principalId eq '{id}', assignedTo('{id}') and their conjunction with 'and'.`,
  );
}
