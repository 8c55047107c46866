// The catalogue of every error the ARM front door emits. Each code is one named factory, so a
// message is written once and a test can find it. Messages copy ARM's wording where it is known;
// the ones marked "(aksemu)" are ours, written in ARM's style.

export interface ArmErrorBody {
  code: string;
  message: string;
  target?: string;
  details?: ArmErrorBody[];
  /** ARM's machine-readable extras, e.g. a template violation's line and path. */
  additionalInfo?: Array<{ type: string; info: unknown }>;
}

export class ArmError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly target?: string,
    readonly details?: ArmErrorBody[],
    readonly headers: Record<string, string> = {},
    readonly additionalInfo?: ArmErrorBody['additionalInfo'],
  ) {
    super(message);
    this.name = 'ArmError';
  }

  get body(): ArmErrorBody {
    const body: ArmErrorBody = { code: this.code, message: this.message };
    if (this.target !== undefined) body.target = this.target;
    if (this.details !== undefined) body.details = this.details;
    if (this.additionalInfo !== undefined) body.additionalInfo = this.additionalInfo;
    return body;
  }

  /** ARM's envelope: {"error": {...}}. */
  toJSON(): { error: ArmErrorBody } {
    return { error: this.body };
  }
}

// ---- authentication ------------------------------------------------------------------------

function bearerChallenge(authorizationUri: string, description: string): Record<string, string> {
  return {
    'WWW-Authenticate': `Bearer authorization_uri="${authorizationUri}", error="invalid_token", error_description="${description}"`,
  };
}

export function authenticationHeaderMissing(authorizationUri: string): ArmError {
  return new ArmError(
    401,
    'AuthenticationFailed',
    "Authentication failed. The 'Authorization' header is missing.",
    undefined,
    undefined,
    bearerChallenge(authorizationUri, "The authentication failed because of missing 'Authorization' header."),
  );
}

export function authenticationHeaderInvalid(authorizationUri: string): ArmError {
  return new ArmError(
    401,
    'AuthenticationFailed',
    "Authentication failed. The 'Authorization' header is provided in an invalid format.",
    undefined,
    undefined,
    bearerChallenge(authorizationUri, "The authentication failed because of invalid 'Authorization' header."),
  );
}

export function invalidAuthenticationToken(authorizationUri: string): ArmError {
  return new ArmError(
    401,
    'InvalidAuthenticationToken',
    'The access token is invalid.',
    undefined,
    undefined,
    bearerChallenge(authorizationUri, 'The access token is invalid.'),
  );
}

/** .NET's invariant UTC rendering, which ARM uses in this message: 2/24/2021 4:33:56 AM. */
function dotnetUtc(date: Date): string {
  const h = date.getUTCHours();
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getUTCMonth() + 1}/${date.getUTCDate()}/${date.getUTCFullYear()} ${h % 12 || 12}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())} ${h < 12 ? 'AM' : 'PM'}`;
}

export function expiredAuthenticationToken(authorizationUri: string, expiry: Date, now: Date): ArmError {
  const message = `The access token expiry UTC time '${dotnetUtc(expiry)}' is earlier than current UTC time '${dotnetUtc(now)}'.`;
  return new ArmError(401, 'ExpiredAuthenticationToken', message, undefined, undefined, bearerChallenge(authorizationUri, 'The access token has expired.'));
}

export function invalidAuthenticationTokenAudience(authorizationUri: string, audience: string, allowed: readonly string[]): ArmError {
  const message = `The access token has been obtained for wrong audience or resource '${audience}'. It should exactly match with one of the allowed audiences ${allowed.map((a) => `'${a}'`).join(',')}.`;
  return new ArmError(
    401,
    'InvalidAuthenticationTokenAudience',
    message,
    undefined,
    undefined,
    bearerChallenge(authorizationUri, 'The access token has been obtained for wrong audience or resource.'),
  );
}

export function invalidAuthenticationTokenTenant(authorizationUri: string, issuer: string, tenantId: string): ArmError {
  const message = `The access token is from the wrong issuer '${issuer}'. It must match the tenant 'https://sts.windows.net/${tenantId}/' associated with this subscription. Please use the authority (URL) '${authorizationUri}' to get the token.`;
  return new ArmError(
    401,
    'InvalidAuthenticationTokenTenant',
    message,
    undefined,
    undefined,
    bearerChallenge(authorizationUri, 'The access token is from the wrong issuer.'),
  );
}

// ---- api-version ---------------------------------------------------------------------------

export function missingApiVersionParameter(): ArmError {
  return new ArmError(400, 'MissingApiVersionParameter', 'The api-version query parameter (?api-version=) is required for all requests.');
}

/** Microsoft.Resources' wording (subscriptions, tenants, resource groups). */
export function invalidApiVersionParameter(apiVersion: string, supported: readonly string[]): ArmError {
  return new ArmError(400, 'InvalidApiVersionParameter', `The api-version '${apiVersion}' is invalid. The supported versions are '${supported.join(',')}'.`);
}

/** A resource provider's wording for an api-version it does not serve. */
export function noRegisteredProviderFound(location: string, apiVersion: string, resourceType: string, supported: readonly string[]): ArmError {
  return new ArmError(
    400,
    'NoRegisteredProviderFound',
    `No registered resource provider found for location '${location}' and API version '${apiVersion}' for type '${resourceType}'. The supported api-versions are '${supported.join(', ')}'.`,
  );
}

// ---- routing -------------------------------------------------------------------------------

export function invalidResourceNamespace(namespace: string): ArmError {
  return new ArmError(400, 'InvalidResourceNamespace', `The resource namespace '${namespace}' is invalid.`);
}

export function invalidResourceType(resourceType: string, namespace: string, apiVersion: string): ArmError {
  return new ArmError(
    400,
    'InvalidResourceType',
    `The resource type '${resourceType}' could not be found in the namespace '${namespace}' for api version '${apiVersion}'.`,
  );
}

/**
 * (aksemu wording) A POST of an action the resource type does not have: ARM routes actions on a type it knows to
 * the resource provider, which answers 404 for an action it has no route for.
 */
export function unknownAction(action: string, resourceType: string): ArmError {
  return new ArmError(404, 'NotFound', `The action '${action}' is not supported on resource type '${resourceType}'.`);
}

/** (aksemu) A path that names no ARM resource or action. */
export function pathNotFound(path: string): ArmError {
  return new ArmError(404, 'NotFound', `The request path '${path}' does not name a resource or action that aksemu serves.`);
}

/** ASP.NET's wording, which ARM passes through. */
export function methodNotAllowed(method: string): ArmError {
  return new ArmError(405, 'MethodNotAllowed', `The requested resource does not support http method '${method}'.`);
}

export function invalidSubscriptionId(subscriptionId: string): ArmError {
  return new ArmError(400, 'InvalidSubscriptionId', `The provided subscription identifier '${subscriptionId}' is malformed or invalid.`);
}

/**
 * (aksemu) A name in the path with a character ARM refuses in resource names (the RPC's list: '<',
 * '>', '%', '&', ':', '\\', '?', '/', '#' and control characters) or longer than 260 characters.
 */
export function invalidResourceName(name: string): ArmError {
  return new ArmError(
    400,
    'InvalidResourceName',
    `The resource name '${name}' is invalid. A name cannot contain '<', '>', '%', '&', ':', '\\', '?', '/', '#' or control characters, and has at most 260 characters.`,
  );
}

export function subscriptionNotFound(subscriptionId: string): ArmError {
  return new ArmError(404, 'SubscriptionNotFound', `The subscription '${subscriptionId}' could not be found.`);
}

// ---- request content -----------------------------------------------------------------------

const DESERIALIZE = 'The request content was invalid and could not be deserialized';

/** Malformed JSON, a wrong type, or an empty body where one is required. */
export function invalidRequestContent(detail: string, target?: string): ArmError {
  return new ArmError(400, 'InvalidRequestContent', `${DESERIALIZE}: '${detail}'.`, target);
}

export interface UnknownMember {
  /** The member's name as the request spelled it, e.g. foo. */
  member: string;
  /** Dotted JSON path, e.g. properties.foo. */
  path: string;
  /** The model the member is not part of, e.g. ResourceGroup. */
  typeName: string;
}

/**
 * (aksemu) Members the model does not have, where no public rule says what the service does (or in --strict mode):
 * every one is named, in the message and in details, in the words of ARM's deserializer.
 */
export function unknownMembers(members: readonly UnknownMember[]): ArmError {
  const sentence = (m: UnknownMember) => `Could not find member '${m.member}' on object of type '${m.typeName}'. Path '${m.path}'.`;
  const message = `${DESERIALIZE}: '${members.map(sentence).join(' ')}'. aksemu rejects unknown properties here; start it with --loose to ignore them.`;
  const details = members.map((m) => ({ code: 'InvalidRequestContent', message: sentence(m), target: m.path }));
  return new ArmError(400, 'InvalidRequestContent', message, members[0]?.path, details);
}

export function unsupportedMediaType(contentType: string): ArmError {
  return new ArmError(415, 'UnsupportedMediaType', `The content media type '${contentType}' is not supported. Only 'application/json' is supported.`);
}

/** Newtonsoft's limit (MaxDepth 64 since Json.NET 13.0.1), which ARM deserializes with, in its words. */
export function maxDepthExceeded(maxDepth: number, path: string, line?: number, position?: number): ArmError {
  const where = line === undefined ? '' : `, line ${line}, position ${position}`;
  return invalidRequestContent(`The reader's MaxDepth of ${maxDepth} has been exceeded. Path '${path}'${where}.`);
}

/** (aksemu) The body is larger than the server accepts. */
export function requestEntityTooLarge(limitBytes: number): ArmError {
  return new ArmError(413, 'RequestEntityTooLarge', `The request content is larger than ${limitBytes} bytes.`);
}

// ---- the HTTP layer (before ARM's pipeline) ---------------------------------------------------
// Answers that http.sys gives in front of ARM, put in ARM's envelope so every client reads them alike.

/** (aksemu) http.sys's "The request URL is invalid": a path that does not percent-decode. */
export function invalidRequestUrl(): ArmError {
  return new ArmError(400, 'BadRequest', 'The request URL is invalid.');
}

/** (aksemu) A request Node's HTTP parser refuses (request line, header syntax, Content-Length). */
export function invalidHttpRequest(): ArmError {
  return new ArmError(400, 'BadRequest', 'The request is not valid HTTP.');
}

/** (aksemu) The request's headers are over Node's limit. */
export function requestHeaderFieldsTooLarge(): ArmError {
  return new ArmError(431, 'RequestHeaderFieldsTooLarge', 'The request headers are larger than the server accepts.');
}

/** (aksemu) The client did not send its request within Node's request timeout. */
export function requestTimeout(): ArmError {
  return new ArmError(408, 'RequestTimeout', 'The client did not send the whole request in time.');
}

/** (aksemu) Over the per-client rate limit; ARM's own throttling answers 429 with Retry-After too. */
export function tooManyRequests(burst: number, perSecond: number, retryAfterSeconds: number): ArmError {
  return new ArmError(
    429,
    'TooManyRequests',
    `The client sent more requests than aksemu accepts (a burst of ${burst}, then ${perSecond} per second). Please retry after ${retryAfterSeconds} seconds.`,
    undefined,
    undefined,
    { 'Retry-After': String(retryAfterSeconds) },
  );
}

// ---- tags ------------------------------------------------------------------------------------
// ARM's tag limits and words (as Microsoft's Az.Migrate module reproduces them): at most 50 tags,
// names of 1–512 characters without '<', '>', '%', '&', '\\', '?', '/' or control characters, values ≤ 256.

export function tooManyTags(count: number, max: number): ArmError {
  return new ArmError(400, 'InvalidTags', `Too many tags specified. Requested tag count - '${count}'. Maximum number of tags allowed - '${max}'.`);
}

export function emptyTagName(): ArmError {
  return new ArmError(400, 'InvalidTagName', 'The tag name must be non-null, non-empty and non-whitespace only. Please provide an actual value.');
}

export function invalidTagNameCharacters(names: readonly string[]): ArmError {
  return new ArmError(400, 'InvalidTagNameCharacters', `The tag names '${names.join(', ')}' have reserved characters '<,>,%,&,\\,?,/' or control characters.`);
}

export function tagNameTooLong(names: readonly string[], max: number): ArmError {
  return new ArmError(
    400,
    'InvalidTagName',
    `Tag key too large. Following tag name '${names.join(', ')}' exceeded the maximum length. Maximum allowed length for tag name - '${max}' characters.`,
  );
}

export function tagValueTooLong(values: readonly string[], max: number): ArmError {
  return new ArmError(
    400,
    'InvalidTagValueLength',
    `Tag value too large. Following tag value '${values.join(', ')}' exceeded the maximum length. Maximum allowed length for tag value - '${max}' characters.`,
  );
}

// ---- resources -----------------------------------------------------------------------------

export function resourceGroupNotFound(name: string): ArmError {
  return new ArmError(404, 'ResourceGroupNotFound', `Resource group '${name}' could not be found.`);
}

export function invalidResourceGroupCharacters(name: string, invalid: string): ArmError {
  return new ArmError(
    400,
    'InvalidResourceGroup',
    `The provided resource group name '${name}' has these invalid characters: '${invalid}'. The name can only be a letter, digit, '-', '.', '(', ')' or '_'.`,
  );
}

/** (aksemu) Length and trailing-period rules; ARM's exact wording for these is not recorded. */
export function invalidResourceGroupName(name: string, reason: string): ArmError {
  return new ArmError(400, 'InvalidResourceGroup', `The provided resource group name '${name}' is invalid: ${reason}`);
}

export function locationRequired(): ArmError {
  return new ArmError(400, 'LocationRequired', 'The location property is required for this definition.');
}

export function locationNotAvailableForResourceGroup(location: string, available: readonly string[]): ArmError {
  return new ArmError(
    400,
    'LocationNotAvailableForResourceGroup',
    `The provided location '${location}' is not available for resource group. List of available regions is '${available.join(',')}'.`,
  );
}

export function invalidResourceGroupLocation(requested: string, existing: string): ArmError {
  return new ArmError(
    409,
    'InvalidResourceGroupLocation',
    `Invalid resource group location '${requested}'. The Resource group already exists in location '${existing}'.`,
  );
}

export function resourceGroupBeingDeleted(name: string): ArmError {
  return new ArmError(409, 'ResourceGroupBeingDeleted', `The resource group '${name}' is in deprovisioning state and cannot perform this operation.`);
}

/** For providers: a resource under a group that does not exist. */
export function resourceNotFound(resourceType: string, name: string, resourceGroup: string): ArmError {
  return new ArmError(
    404,
    'ResourceNotFound',
    `The Resource '${resourceType}/${name}' under resource group '${resourceGroup}' was not found. For more details please go to https://aka.ms/ARMResourceNotFoundFix`,
  );
}

// ---- long-running operations ---------------------------------------------------------------

/** (aksemu) An operation id this server never issued, or one asked for under another scope. */
export function operationNotFound(operationId: string): ArmError {
  return new ArmError(404, 'OperationNotFound', `The operation '${operationId}' could not be found.`);
}

/** (aksemu) An operation in flight at a restart whose kind no provider registers any more. */
export function operationInterrupted(kind: string): ArmError {
  return new ArmError(
    500,
    'OperationInterrupted',
    `The operation was interrupted by a restart of aksemu, and no provider can finish an operation of kind '${kind}'.`,
  );
}

// ---- the server itself ---------------------------------------------------------------------

export function internalServerError(requestId: string): ArmError {
  return new ArmError(500, 'InternalServerError', `The server encountered an internal error. Please retry the request. Request id '${requestId}'.`);
}

// ---- Microsoft.ContainerService --------------------------------------------------------------

/** The rule table's findings (src/aks/rules.ts) as one ARM error: the first on top, all of them in details. */
export function validationFailed(problems: readonly { code: string; message: string; target: string }[]): ArmError {
  const [first] = problems;
  if (!first) throw new Error('validationFailed needs at least one problem');
  // The first problem is the error itself; details hold the others, so no client prints a sentence twice.
  const details = problems.length > 1 ? problems.slice(1).map((p) => ({ code: p.code, message: p.message, target: p.target })) : undefined;
  return new ArmError(400, first.code, first.message, first.target, details);
}

/**
 * An If-Match / If-None-Match precondition the resource does not meet (AKSDOCS use-etags: the request fails early;
 * HTTP's 412). AKS's exact text is not published; the words are ours (docs/aks-rules.md §3.7).
 */
export function preconditionFailed(header: 'If-Match' | 'If-None-Match', given: string, eTag: string | undefined): ArmError {
  const actual = eTag === undefined ? 'the resource does not exist' : `the resource's eTag is '${eTag}'`;
  return new ArmError(412, 'PreconditionFailed', `The condition '${header}: ${given}' is not met: ${actual}.`);
}

/** AKS's answer to a second operation on a busy cluster (SUPPORT operationnotallowed.md). */
export function operationNotAllowed(operationName: string): ArmError {
  return new ArmError(
    409,
    'OperationNotAllowed',
    `Operation is not allowed: Another operation (${operationName}) is in progress, please wait for it to finish before starting a new operation. See https://aka.ms/aks-pending-operation for more details`,
  );
}

/** AKS's words for a node resource group name that is no resource group name (a '/' would reach other keys). */
export function invalidNodeResourceGroupName(): ArmError {
  return new ArmError(
    400,
    'InvalidParameter',
    'The value of parameter nodeResourceGroupName is invalid. Please see https://aka.ms/aks-naming-rules for more details.',
    'nodeResourceGroupName',
  );
}

export function nodeResourceGroupSameAsResourceGroup(nodeResourceGroup: string, resourceGroup: string): ArmError {
  return new ArmError(
    400,
    'NodeResourceGroupSameAsResourceGroup',
    `Node resource group '${nodeResourceGroup}' is the same as ResourceGroup '${resourceGroup}', which is not allowed, please provide a different node resource group.`,
  );
}

/** AKS creates the node resource group; it never adopts (and so, on delete, never removes) an existing one. */
export function nodeResourceGroupAlreadyExists(nodeResourceGroup: string, subscriptionId: string): ArmError {
  return new ArmError(
    400,
    'NodeResourceGroupAlreadyExists',
    `Node resource group '${nodeResourceGroup}' under subscription '${subscriptionId}' already exists, please provide a new one.`,
  );
}

/** The failure of a long-running AKS operation whose work hit a rule at run time (SubnetIsFull, …). */
export function operationFailed(problem: { code: string; message: string; target: string }): ArmError {
  return new ArmError(400, problem.code, problem.message, problem.target);
}

// ---- ARM templates and deployments (Microsoft.Resources/deployments) ---------------------------
// InvalidTemplate wraps one sentence of the template language; the sentences are below it, so the
// template engine words every problem through this catalogue.

/** Where in the request a template problem sits (ARM's TemplateViolation additional info). */
export interface TemplateViolation {
  lineNumber: number;
  linePosition: number;
  /** e.g. properties.template.resources[0] */
  path: string;
}

function violationInfo(violation: TemplateViolation | undefined): ArmErrorBody['additionalInfo'] {
  return violation ? [{ type: 'TemplateViolation', info: violation }] : undefined;
}

/** The template failed validation (parameters, expressions, structure): 400 before anything runs. */
export function invalidTemplate(sentence: string, violation?: TemplateViolation): ArmError {
  return new ArmError(400, 'InvalidTemplate', `Deployment template validation failed: '${sentence}'.`, undefined, undefined, {}, violationInfo(violation));
}

/** A resource's deployment failed while the template ran; every resource error is in details. */
export function deploymentFailed(details: ArmErrorBody[]): ArmError {
  return new ArmError(
    400,
    'DeploymentFailed',
    'At least one resource deployment operation failed. Please list deployment operations for details. Please see https://aka.ms/arm-deployment-operations for usage details.',
    undefined,
    details,
  );
}

/**
 * ARM's words as pasted in Azure/azure-policy#1442 (2025-03) and Azure-Samples/azureai-foundry-finetuning-raft#42:
 * the link is arm-common-errors, and the detail ends in `..` where the inner sentence ends in a period.
 */
export function deploymentOutputEvaluationFailed(outputName: string, sentence: string): ArmError {
  return new ArmError(
    400,
    'DeploymentOutputEvaluationFailed',
    `Unable to evaluate template outputs: '${outputName}'. Please see error details and deployment operations. Please see https://aka.ms/arm-common-errors for usage details.`,
    undefined,
    [{ code: 'DeploymentOutputEvaluationFailed', message: `The template output '${outputName}' is not valid: ${sentence}.`, target: outputName }],
  );
}

export function deploymentNotFound(name: string): ArmError {
  return new ArmError(404, 'DeploymentNotFound', `Deployment '${name}' could not be found.`);
}

export function deploymentActive(name: string): ArmError {
  return new ArmError(
    409,
    'DeploymentActive',
    `Unable to edit or replace deployment '${name}': previous deployment is still active. Please see https://aka.ms/arm-deploy-resources for usage details.`,
  );
}

/** (aksemu) Deployment names: 1–64 of letters, digits, '-', '_', '.', '(' and ')'. */
export function invalidDeploymentName(name: string): ArmError {
  return new ArmError(
    400,
    'InvalidDeploymentName',
    `The deployment name '${name}' is invalid. It can contain up to 64 letters, digits, '-', '_', '.', '(' and ')'.`,
  );
}

/** The sentences of the template language (inside InvalidTemplate and deployment failures). */
export const templateSentences = {
  parameterNotFound: (name: string) => `The template parameter '${name}' is not found. Please see https://aka.ms/arm-syntax-parameters for usage details.`,
  variableNotFound: (name: string) => `The template variable '${name}' is not found. Please see https://aka.ms/arm-syntax-variables for usage details.`,
  functionNotValid: (name: string) => `The template function '${name}' is not valid. Please see https://aka.ms/arm-template-expressions for usage details.`,
  unparsable: (expression: string, detail: string) => `Unable to parse language expression '${expression}': ${detail}`,
  expectedToken: (expected: string, actual: string) => `expected token '${expected}' and actual '${actual}'.`,
  /** A resource whose properties could not be evaluated: ARM names it, its line and column. ARM
   *  appends its own sentence to the inner one's, hence "details.. Please see". */
  resourceNotValid: (name: string, line: number, column: number, inner: string) =>
    `The template resource '${name}' at line '${line}' and column '${column}' is not valid: ${inner}. Please see https://aka.ms/arm-template-expressions for usage details.`,
  variableNotValid: (name: string, inner: string) =>
    `The template variable '${name}' is not valid: ${inner}. Please see https://aka.ms/arm-template-expressions for usage details.`,
  outputNotValid: (name: string, inner: string) =>
    `The template output '${name}' is not valid: ${inner}. Please see https://aka.ms/arm-template-expressions for usage details.`,
  parameterValueNotProvided: (name: string, line: number, column: number) =>
    `The value for the template parameter '${name}' at line '${line}' and column '${column}' is not provided. Please see https://aka.ms/arm-create-parameter-file for usage details.`,
  parametersNotInTemplate: (names: string[], supported: string[]) =>
    `The template parameters '${names.join(', ')}' in the parameters file are not valid; they are not present in the original template and can therefore not be provided at deployment time. The only supported parameters for this template are '${supported.join(', ')}'. Please see https://aka.ms/arm-pass-parameter-values for usage details.`,
  parameterTypeMismatch: (expected: string, actual: string) =>
    `Template parameter JToken type is not valid. Expected '${expected}'. Actual '${actual}'. Please see https://aka.ms/arm-create-parameter-file for usage details.`,
  parameterNotAllowed: (value: string, name: string, line: number, column: number, allowed: string) =>
    `The provided value '${value}' for the template parameter '${name}' at line '${line}' and column '${column}' is not valid. The parameter value is not part of the allowed value(s): '${allowed}'. Please see https://aka.ms/arm-syntax-parameters for usage details.`,
  parameterLength: (name: string, bound: 'less' | 'greater', limit: number) =>
    `The provided value for the template parameter '${name}' is not valid. Length of the value should be ${bound} than or equal to '${limit}'. Please see https://aka.ms/arm-syntax-parameters for usage details.`,
  /** (aksemu) wording of the integer bounds in the style of the length ones. */
  parameterRange: (name: string, bound: 'less' | 'greater', limit: number) =>
    `The provided value for the template parameter '${name}' is not valid. The value should be ${bound} than or equal to '${limit}'. Please see https://aka.ms/arm-syntax-parameters for usage details.`,
  resourceNotDefined: (id: string) => `The resource '${id}' is not defined in the template. Please see https://aka.ms/arm-syntax for usage details.`,
  circularDependency: (ids: string[]) =>
    `Circular dependency detected on resource: '${ids.join("', '")}'. Please see https://aka.ms/arm-syntax-resources for usage details.`,
  /** (aksemu) a resource type no provider here serves. */
  unsupportedResourceType: (type: string) => `The resource type '${type}' is not served by aksemu.`,
  incorrectSegmentLengths: (name: string, type: string) =>
    `The template resource '${name}' for type '${type}' has incorrect segment lengths. A nested resource type must have identical number of segments as its resource name. A root resource type must have segment length one greater than its resource name. Please see https://aka.ms/arm-template/#resources for usage details.`,
  schemaNotSupported: () => "The template's $schema is not a deployment template schema aksemu supports (resource group or subscription scope).",
};

// ---- Microsoft.ContainerService: power state, abort, runCommand (docs/aks-rules.md §8) -------

/**
 * AKS's answer to an operation its cluster's power state does not allow (stopping a stopped cluster, starting
 * a running one, changing a stopped one): the wording AKS gave for stopping a stopped cluster.
 */
export function clusterPowerStateConflict(operation: string, provisioningState: string, powerState: string): ArmError {
  return new ArmError(
    409,
    'OperationNotAllowed',
    `managed cluster is in Provisioning State(${provisioningState}) and Power State(${powerState}), ${operation} cannot be performed`,
  );
}

/** (aksemu wording) AKS does not stop System pools: a cluster keeps its system workloads running. */
export function systemPoolCannotStop(pool: string): ArmError {
  return new ArmError(
    400,
    'OperationNotAllowed',
    `Agent pool '${pool}' is a System pool and cannot be stopped; only User pools can be stopped. See https://aka.ms/aks/start-stop-nodepools for more details`,
    'properties.powerState.code',
  );
}

/** (aksemu wording) A pool the cluster autoscaler manages cannot be stopped: the autoscaler would bring it back. */
export function autoscaledPoolCannotStop(pool: string): ArmError {
  return new ArmError(
    400,
    'OperationNotAllowed',
    `Agent pool '${pool}' has the cluster autoscaler enabled and cannot be stopped; disable the autoscaler first. See https://aka.ms/aks/start-stop-nodepools for more details`,
    'properties.powerState.code',
  );
}

/** (aksemu wording) A power state the API does not have. */
export function invalidPowerState(code: string): ArmError {
  return new ArmError(
    400,
    'InvalidParameter',
    `The value of parameter properties.powerState.code is invalid: '${code}'. Allowed values are 'Running' and 'Stopped'.`,
    'properties.powerState.code',
  );
}

/** AbortLatestOperation with nothing to abort: AKS answers 409 when the operation ended before it could be canceled (aksemu wording). */
export function noOperationToAbort(resource: string): ArmError {
  return new ArmError(409, 'OperationNotAllowed', `There is no operation in progress on '${resource}' to abort.`);
}

/**
 * (aksemu) runCommand runs the command in a pod AKS schedules on the cluster's nodes; aksemu's nodes run
 * no containers, so the command cannot run and nothing is reported as if it had.
 */
export function runCommandUnavailable(): ArmError {
  return new ArmError(
    400,
    'OperationNotAllowed',
    "runCommand cannot run here: AKS runs the command in a pod on the cluster's nodes, and aksemu's nodes run no containers. Use kubectl with the cluster's credentials (listClusterUserCredential) instead.",
  );
}

/** (aksemu) A commandResults id this server never issued (runCommand issues none). */
export function commandResultNotFound(commandId: string): ArmError {
  return new ArmError(404, 'NotFound', `The command result '${commandId}' could not be found.`);
}
