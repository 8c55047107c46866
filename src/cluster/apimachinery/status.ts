// Kubernetes `Status` bodies (docs/clients.md §5.14): what the API server answers when something fails.
// Thrown as KubeError by handlers and turned into the HTTP reply by the server.

/** One field error of a 422 (metav1.StatusCause): `reason` is the field.ErrorType, `message` its words. */
export interface StatusCause {
  reason: string;
  message: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
}

export class KubeError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly details?: StatusDetails,
  ) {
    super(message);
    this.name = 'KubeError';
  }

  toStatus(): Record<string, unknown> {
    return failureStatus(this.code, this.reason, this.message, this.details);
  }
}

export function failureStatus(code: number, reason: string, message: string, details?: StatusDetails): Record<string, unknown> {
  const body: Record<string, unknown> = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason };
  if (details) body['details'] = details;
  body['code'] = code;
  return body;
}

export function successStatus(details: StatusDetails): Record<string, unknown> {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details };
}

/** `pods "x" not found`, `daemonsets.apps "x" not found`. */
export function qualified(resource: string, group: string): string {
  return group === '' ? resource : `${resource}.${group}`;
}

export function notFound(resource: string, group: string, name: string): KubeError {
  const details: StatusDetails = { name, kind: resource };
  if (group !== '') details.group = group;
  return new KubeError(404, 'NotFound', `${qualified(resource, group)} "${name}" not found`, details);
}

export function alreadyExists(resource: string, group: string, name: string): KubeError {
  const details: StatusDetails = { name, kind: resource };
  if (group !== '') details.group = group;
  return new KubeError(409, 'AlreadyExists', `${qualified(resource, group)} "${name}" already exists`, details);
}

export function pathNotFound(): KubeError {
  return new KubeError(404, 'NotFound', 'the server could not find the requested resource');
}

export function unauthorized(): KubeError {
  return new KubeError(401, 'Unauthorized', 'Unauthorized');
}

export function badRequest(message: string): KubeError {
  return new KubeError(400, 'BadRequest', message);
}

export function methodNotSupported(verb: string, resource: string): KubeError {
  return new KubeError(405, 'MethodNotAllowed', `the server does not allow this method on the requested resource (${verb} ${resource})`);
}

export function gone(message: string): KubeError {
  return new KubeError(410, 'Expired', message);
}

/** Go's %v / %q of a field's bad value, as field.Error prints it. */
function goValue(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  return typeof value === 'number' || typeof value === 'boolean' ? String(value) : JSON.stringify(value);
}

/** field.Invalid, field.Required, field.TooLong: the causes of a 422, worded as the apiserver words them. */
export const fieldError = {
  invalid: (field: string, value: unknown, detail: string): StatusCause => ({
    reason: 'FieldValueInvalid',
    message: `Invalid value: ${goValue(value)}: ${detail}`,
    field,
  }),
  required: (field: string, detail = ''): StatusCause => ({
    reason: 'FieldValueRequired',
    message: detail ? `Required value: ${detail}` : 'Required value',
    field,
  }),
  forbidden: (field: string, detail: string): StatusCause => ({ reason: 'FieldValueForbidden', message: `Forbidden: ${detail}`, field }),
  tooLong: (field: string, max: number): StatusCause => ({ reason: 'FieldValueTooLong', message: `Too long: must have at most ${max} bytes`, field }),
  unsupported: (field: string, value: unknown, supported: string[]): StatusCause => ({
    reason: 'FieldValueNotSupported',
    message: `Unsupported value: ${goValue(value)}: supported values: ${supported.map((v) => JSON.stringify(v)).join(', ')}`,
    field,
  }),
};

/** `Pod "x" is invalid: <field>: <message>` (several in brackets), with the causes kubectl prints. */
export function invalidObject(kind: string, group: string, name: string, causes: StatusCause[]): KubeError {
  const text = causes.map((c) => `${c.field}: ${c.message}`);
  const details: StatusDetails = { name, ...(group ? { group } : {}), kind, causes };
  return new KubeError(
    422,
    'Invalid',
    `${kind}${group ? `.${group}` : ''} "${name}" is invalid: ${text.length === 1 ? text[0] : `[${text.join(', ')}]`}`,
    details,
  );
}

/** The apiserver's decode error (transformDecodeError): the body does not fit the kind's Go types. */
export function cannotDecode(kind: string, version: string, why: string): KubeError {
  return badRequest(`${kind} in version "${version}" cannot be handled as a ${kind}: ${why}`);
}

/** apierrors.NewRequestEntityTooLargeError. */
export function tooLarge(why: string): KubeError {
  return new KubeError(413, 'RequestEntityTooLarge', `Request entity too large: ${why}`);
}

/** Request headers past the limit (Go's server answers 431 too, in plain text). */
export function headersTooLarge(): KubeError {
  return new KubeError(431, 'RequestHeaderFieldsTooLarge', 'Request Header Fields Too Large');
}

/** A JSON patch that does not apply: the apiserver's generic 422, the patch library's words as the cause. */
export function patchRejected(why: string): KubeError {
  return new KubeError(422, 'Invalid', 'the server rejected our request due to an error in our request', {
    causes: [{ reason: 'UnexpectedServerResponse', message: why }],
  });
}

/** apierrors.NewForbidden: `pods "x" is forbidden: <why>`. */
export function forbidden(resource: string, group: string, name: string, why: string): KubeError {
  const details: StatusDetails = { name, ...(group ? { group } : {}), kind: resource };
  return new KubeError(403, 'Forbidden', `${qualified(resource, group)} "${name}" is forbidden: ${why}`, details);
}
