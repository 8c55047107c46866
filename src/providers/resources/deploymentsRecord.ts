// What the store keeps for a deployment and its operations, how ARM renders them, and how a
// deployment request is read: az sends JSONC (comments, an unquoted `template:` key), so the body
// is parsed here with the lenient reader (its size and nesting bounded as ARM bounds them), then
// checked against the Deployment model.
import { randomBytes, randomUUID } from 'node:crypto';
import { ArmError, invalidDeploymentName, invalidRequestContent, unknownMembers, type ArmErrorBody } from '../../arm/errors.js';
import type { RequestContext } from '../../arm/provider.js';
import { checkBody, s } from '../../arm/schema.js';
import { parseJsonc, JsoncError } from '../../templates/jsonc.js';
import type { OutputValues, Plan, ResourceOutcome } from '../../templates/engine.js';
import { isObject } from '../../templates/functions/types.js';
import { LIMITS, requestContentTooLarge } from '../../templates/limits.js';

export const DEPLOYMENT_TYPE = 'Microsoft.Resources/deployments';

type DeploymentState = 'Accepted' | 'Running' | 'Succeeded' | 'Failed' | 'Canceled';

export interface DeploymentProperties {
  templateHash: string;
  parameters: Record<string, { type: string; value?: unknown }>;
  mode: string;
  provisioningState: DeploymentState;
  timestamp: string;
  duration: string;
  correlationId: string;
  providers: unknown[];
  dependencies: unknown[];
  outputs?: OutputValues;
  outputResources?: Array<{ id: string }>;
  error?: ArmErrorBody;
}

/** The record: ARM's shape plus what aksemu needs to serve status (the template is kept apart, see deploymentsStore). */
export interface DeploymentRecord {
  id: string;
  name: string;
  type: typeof DEPLOYMENT_TYPE;
  location?: string;
  tags?: Record<string, string>;
  properties: DeploymentProperties;
  aksemu: { operationId: string; startTime: string };
}

export interface DeploymentRequest {
  template: unknown;
  parameters: Record<string, unknown>;
  mode: string;
  location?: string;
  tags?: Record<string, string>;
}

/** What a deployment and a what-if request both carry in their properties. */
const deploymentMembers = {
  template: s.any(),
  templateLink: s.any(),
  parameters: s.map(s.any()),
  parametersLink: s.any(),
  mode: s.string(),
  debugSetting: s.object('DebugSetting', { detailLevel: s.string() }),
  onErrorDeployment: s.any(),
  expressionEvaluationOptions: s.object('ExpressionEvaluationOptions', { scope: s.string() }),
};

/** The REST model of a deployment request (strict members, as every aksemu body). */
const deploymentModel = s.object('Deployment', {
  location: s.string(),
  tags: s.map(s.string()),
  properties: s.object('DeploymentProperties', {
    ...deploymentMembers,
    validationLevel: s.string(),
  }),
});

const whatIfModel = s.object('DeploymentWhatIf', {
  location: s.string(),
  properties: s.object('DeploymentWhatIfProperties', {
    ...deploymentMembers,
    whatIfSettings: s.object('DeploymentWhatIfSettings', { resultFormat: s.string() }),
    validationLevel: s.string(),
  }),
});

export function checkDeploymentName(name: string): void {
  if (!/^[-\w.()]{1,64}$/.test(name)) throw invalidDeploymentName(name);
}

/** A value as a deserialization error quotes it, cut short: the error must not be larger than the request. */
function quoted(value: unknown): string {
  const text = JSON.stringify(value) ?? 'null';
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

/** Reads the body of PUT, validate and whatIf. */
export function readDeploymentRequest(ctx: RequestContext, kind: 'deploy' | 'whatIf'): DeploymentRequest {
  const raw = ctx.rawBody ?? '';
  // ARM takes 4 MB of template and parameters: refused before anything is parsed or evaluated.
  if (Buffer.byteLength(raw, 'utf8') > LIMITS.templateBytes) throw requestContentTooLarge();
  if (raw.trim() === '') throw invalidRequestContent('The request content is empty');
  let parsed: unknown;
  try {
    parsed = parseJsonc(raw);
  } catch (err) {
    if (err instanceof JsoncError) throw invalidRequestContent(err.message.replace(/\.$/, ''));
    throw err;
  }
  // A null body (or null properties) is a deployment without properties.
  const body = (checkBody(kind === 'deploy' ? deploymentModel : whatIfModel, parsed, ctx.loose ? undefined : unknownMembers) ?? {}) as {
    location?: string;
    tags?: Record<string, string>;
    properties?: { template?: unknown; templateLink?: unknown; parameters?: Record<string, unknown>; parametersLink?: unknown; mode?: string };
  };
  const props = body.properties;
  if (!props) throw invalidRequestContent("Required property 'properties' not found in JSON. Path ''");
  if (props.templateLink !== undefined && props.templateLink !== null) {
    throw new ArmError(400, 'InvalidTemplateLink', 'aksemu is offline: give the template inline (properties.template), not as a link.');
  }
  if (props.parametersLink !== undefined && props.parametersLink !== null) {
    throw new ArmError(400, 'InvalidParametersLink', 'aksemu is offline: give the parameters inline (properties.parameters), not as a link.');
  }
  if (props.template === undefined || props.template === null) {
    throw new ArmError(400, 'InvalidDeployment', "The deployment must have either 'template' or 'templateLink' set.");
  }
  if (!isObject(props.template)) {
    throw invalidRequestContent(`Error converting value ${quoted(props.template)} to type 'Object'. Path 'properties.template'`, 'properties.template');
  }
  for (const [name, entry] of Object.entries(props.parameters ?? {})) {
    // ARM's words for a parameter that is not {"value": …} (or a key vault reference).
    if (!isObject(entry)) {
      throw invalidRequestContent(
        `Error converting value ${quoted(entry)} to type 'Microsoft.WindowsAzure.ResourceStack.Frontdoor.Data.Definitions.DeploymentParameterDefinition'. Path 'properties.parameters.${name}'`,
        `properties.parameters.${name}`,
      );
    }
  }
  const mode = props.mode ?? 'Incremental';
  if (!/^incremental$/i.test(mode)) {
    // Complete mode deletes what the template leaves out; aksemu does not do that yet.
    throw new ArmError(400, 'InvalidDeploymentMode', `The deployment mode '${mode}' is not supported by aksemu; use 'Incremental'.`);
  }
  return {
    template: props.template,
    parameters: props.parameters ?? {},
    mode: 'Incremental',
    ...(body.location ? { location: body.location } : {}),
    ...(body.tags ? { tags: body.tags } : {}),
  };
}

/** A deployment's id: in a resource group, or (no group) at the subscription. */
export function deploymentId(subscriptionId: string, groupName: string | undefined, name: string): string {
  const scope = groupName === undefined ? `/subscriptions/${subscriptionId}` : `/subscriptions/${subscriptionId}/resourceGroups/${groupName}`;
  return `${scope}/providers/${DEPLOYMENT_TYPE}/${name}`;
}

/** ISO-8601 duration as ARM writes it (PT1.2345S). */
export function isoDuration(startIso: string, endIso: string): string {
  const ms = Math.max(0, Date.parse(endIso) - Date.parse(startIso));
  return `PT${(ms / 1000).toFixed(3).replace(/\.?0+$/, '') || '0'}S`;
}

export function render(record: DeploymentRecord): Record<string, unknown> {
  const { aksemu: _internal, ...visible } = record;
  return visible;
}

/** providers: the types the template deploys, grouped by namespace, with their locations. */
export function providersOf(plan: Plan): unknown[] {
  const byNamespace = new Map<string, Map<string, Set<string>>>();
  for (const inst of plan.order) {
    if (!inst.deploy || inst.existing) continue;
    const [namespace, ...rest] = inst.type.split('/');
    const types = byNamespace.get(namespace!) ?? new Map<string, Set<string>>();
    byNamespace.set(namespace!, types);
    const locations = types.get(rest.join('/')) ?? new Set<string>();
    types.set(rest.join('/'), locations);
    const location = plan.preview.get(inst)?.['location'];
    if (typeof location === 'string') locations.add(location.toLowerCase().replace(/\s+/g, ''));
  }
  return [...byNamespace].map(([namespace, types]) => ({
    namespace,
    resourceTypes: [...types].map(([resourceType, locations]) => ({ resourceType, locations: [...locations] })),
  }));
}

/** dependencies: each resource with what it waits for. */
export function dependenciesOf(plan: Plan): unknown[] {
  const ref = (i: { id: string; type: string; name: string }) => ({ id: i.id, resourceType: i.type, resourceName: i.name });
  return plan.order.filter((i) => i.deploy && i.dependsOn.length > 0).map((i) => ({ ...ref(i), dependsOn: i.dependsOn.map(ref) }));
}

export interface OperationRecord {
  id: string;
  operationId: string;
  properties: Record<string, unknown>;
}

function operationId(): string {
  // ARM's operation ids are 16 upper-case hex digits.
  return randomBytes(8).toString('hex').toUpperCase();
}

/** The deployment operations ARM lists: one per resource, and one for the outputs. */
export function operationRecords(
  deploymentIdValue: string,
  outcomes: readonly ResourceOutcome[],
  outputsEvaluated: { at: string } | undefined,
): OperationRecord[] {
  const records: OperationRecord[] = outcomes.map((o) => {
    const id = operationId();
    const properties: Record<string, unknown> = {
      // An existing resource (languageVersion 2.0) is read, not created.
      provisioningOperation: o.instance.existing ? 'Read' : 'Create',
      provisioningState: o.status,
      timestamp: o.endTime,
      duration: isoDuration(o.startTime, o.endTime),
      trackingId: randomUUID(),
      serviceRequestId: randomUUID(),
      statusCode: o.statusCode,
      targetResource: { id: o.instance.id, resourceType: o.instance.type, resourceName: o.instance.name, apiVersion: o.instance.apiVersion },
    };
    if (o.error) properties['statusMessage'] = { status: 'Failed', error: o.error };
    return { id: `${deploymentIdValue}/operations/${id}`, operationId: id, properties };
  });
  if (outputsEvaluated) {
    const id = operationId();
    records.push({
      id: `${deploymentIdValue}/operations/${id}`,
      operationId: id,
      properties: {
        provisioningOperation: 'EvaluateDeploymentOutput',
        provisioningState: 'Succeeded',
        timestamp: outputsEvaluated.at,
        duration: 'PT0S',
        trackingId: randomUUID(),
        statusCode: 'OK',
      },
    });
  }
  return records;
}
