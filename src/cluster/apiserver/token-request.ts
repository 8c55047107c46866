// serviceaccounts/token: the TokenRequest API (`kubectl create token`, client-go's CreateToken). As the
// apiserver's TokenREST (pkg/registry/core/serviceaccount/storage/token.go): the service account must exist; a
// bound object (Pod, Secret, Node) must exist, with the uid given if one is, and a pod must run as that account;
// audiences default to the API's own, the lifetime to an hour (SetDefaults_TokenRequestSpec), at least ten
// minutes and at most 2^32 seconds (ValidateTokenRequest). Nothing is stored: the answer is the request with
// its status (the token and when it expires), 201.
import type { KubeObject } from '../apimachinery/object.js';
import type { ObjectStore } from './storage/store.js';
import { NODES, PODS, SECRETS, SERVICEACCOUNTS, type ResourceType } from '../apimachinery/resources.js';
import { issueRequestedToken, API_AUDIENCE, type RequestedToken } from './service-account-tokens.js';
import { badRequest, fieldError, invalidObject, notFound } from '../apimachinery/status.js';
import { k8sTime } from '../apimachinery/time.js';
import { conflict } from './write-options.js';
import { isPlainObject } from '../../http/own.js';

const HOUR_S = 3600;
const MIN_S = 600;
const MAX_S = 2 ** 32;

const BINDABLE: Record<string, { r: ResourceType; claim: NonNullable<RequestedToken['bound']>['kind'] }> = {
  Pod: { r: PODS, claim: 'pod' },
  Secret: { r: SECRETS, claim: 'secret' },
  Node: { r: NODES, claim: 'node' },
};

export function requestToken(objects: ObjectStore, key: Buffer, namespace: string, name: string, body: unknown, now = Date.now()): Record<string, unknown> {
  if (!isPlainObject(body)) throw badRequest('the body of the request was not a TokenRequest');
  const kind = body['kind'];
  if (kind !== undefined && kind !== 'TokenRequest') throw badRequest(`the body of the request was a ${String(kind)}, not a TokenRequest`);
  const account = objects.get(SERVICEACCOUNTS, namespace, name);
  if (!account) throw notFound('serviceaccounts', '', name);
  const spec = isPlainObject(body['spec']) ? body['spec'] : {};

  const expirationSeconds = typeof spec['expirationSeconds'] === 'number' ? spec['expirationSeconds'] : HOUR_S;
  if (expirationSeconds < MIN_S || expirationSeconds > MAX_S) {
    const why = expirationSeconds < MIN_S ? 'may not specify a duration less than 10 minutes' : 'may not specify a duration larger than 2^32 seconds';
    throw invalidObject('TokenRequest', 'authentication.k8s.io', name, [fieldError.invalid('spec.expirationSeconds', expirationSeconds, why)]);
  }
  const asked = Array.isArray(spec['audiences']) ? spec['audiences'].filter((a): a is string => typeof a === 'string') : [];
  const audiences = asked.length > 0 ? asked : [API_AUDIENCE];
  const bound = isPlainObject(spec['boundObjectRef']) ? boundObject(objects, namespace, name, spec['boundObjectRef']) : undefined;

  const { token, expires } = issueRequestedToken(
    key,
    { namespace, serviceAccount: { name, uid: account.metadata.uid ?? '' }, audiences, expirationSeconds, ...(bound ? { bound } : {}) },
    now,
  );
  const metadata = isPlainObject(body['metadata']) ? body['metadata'] : {};
  return {
    kind: 'TokenRequest',
    apiVersion: 'authentication.k8s.io/v1',
    metadata: { ...metadata, name, namespace, creationTimestamp: null },
    spec: { ...spec, audiences, expirationSeconds, boundObjectRef: spec['boundObjectRef'] ?? null },
    status: { token, expirationTimestamp: k8sTime(expires) },
  };
}

function boundObject(objects: ObjectStore, namespace: string, account: string, ref: Record<string, unknown>): RequestedToken['bound'] {
  const kind = typeof ref['kind'] === 'string' ? ref['kind'] : '';
  const apiVersion = typeof ref['apiVersion'] === 'string' ? ref['apiVersion'] : '';
  const refName = typeof ref['name'] === 'string' ? ref['name'] : '';
  const bindable = apiVersion === 'v1' || apiVersion === '' ? BINDABLE[kind] : undefined;
  if (!bindable) {
    const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
    throw badRequest(`cannot bind token to object of type ${group}/${version}, Kind=${kind}`);
  }
  const obj: KubeObject | undefined = objects.get(bindable.r, bindable.r.namespaced ? namespace : undefined, refName);
  if (!obj) throw notFound(bindable.r.resource, '', refName);
  if (bindable.claim === 'pod') {
    const runsAs = ((obj['spec'] as Record<string, unknown> | undefined)?.['serviceAccountName'] as string | undefined) ?? '';
    if (runsAs !== account) throw badRequest(`cannot bind token for serviceaccount "${account}" to pod running with serviceaccount "${runsAs}"`);
  }
  const uid = obj.metadata.uid ?? '';
  if (typeof ref['uid'] === 'string' && ref['uid'] !== '' && ref['uid'] !== uid) {
    throw conflict(
      { resource: kind, group: '' },
      refName,
      `the UID in the bound object reference (${ref['uid']}) does not match the UID in record (${uid}). The object might have been deleted and then recreated`,
    );
  }
  return { kind: bindable.claim, name: refName, uid };
}
