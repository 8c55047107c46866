// Kubernetes `Status` bodies (docs/clients.md §5.14): what the API server answers when something fails.
// Thrown as KubeError by handlers and turned into the HTTP reply by the server.

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
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

export function invalid(kind: string, group: string, name: string, message: string): KubeError {
  const details: StatusDetails = { name, kind };
  if (group !== '') details.group = group;
  return new KubeError(422, 'Invalid', `${kind}${group ? `.${group}` : ''} "${name}" is invalid: ${message}`, details);
}
