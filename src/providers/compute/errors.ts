// Microsoft.Compute's errors. "Required parameter '…' is missing (null).", "The Admin Username specified
// is not allowed." and "Changing property '…' is not allowed." are the Compute RP's wording (seen in
// public azure-cli and Terraform issues); the ones marked "(aksemu)" are ours, in the RP's style.
import { ArmError } from '../../arm/errors.js';

export function requiredParameterMissing(parameter: string): ArmError {
  return new ArmError(400, 'InvalidParameter', `Required parameter '${parameter}' is missing (null).`, parameter);
}

export function adminUsernameNotAllowed(): ArmError {
  return new ArmError(400, 'InvalidParameter', 'The Admin Username specified is not allowed.', 'adminUsername');
}

export function propertyChangeNotAllowed(property: string): ArmError {
  return new ArmError(409, 'PropertyChangeNotAllowed', `Changing property '${property}' is not allowed.`, property);
}

/** (aksemu) A NIC list without exactly one primary when there are several. */
export function primaryNicRequired(vmName: string): ArmError {
  return new ArmError(
    400,
    'InvalidParameter',
    `Virtual machine ${vmName} has more than one network interface; exactly one must have properties.primary set to true.`,
    'networkProfile.networkInterfaces',
  );
}

/** (aksemu) A NIC that another VM already uses. */
export function nicInUse(nicId: string, vmId: string): ArmError {
  return new ArmError(
    409,
    'NicInUse',
    `Network interface ${nicId} is used by virtual machine ${vmId}. A network interface can be attached to one virtual machine only.`,
    'networkProfile.networkInterfaces',
  );
}

/** (aksemu) A member with a value aksemu does not model. */
export function invalidParameter(message: string, target: string): ArmError {
  return new ArmError(400, 'InvalidParameter', message, target);
}
