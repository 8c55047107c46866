// Service-account tokens as the kubelet projects them into every container (the `kube-api-access-*` projected
// volume at /var/run/secrets/kubernetes.io/serviceaccount: token, ca.crt, namespace). A token is JWT-shaped —
// header.payload.signature, base64url — with the claims a bound token carries (iss, sub
// `system:serviceaccount:<ns>:<name>`, aud, iat/nbf/exp, kubernetes.io: namespace, pod, serviceaccount, node),
// signed with HMAC-SHA256 under a key of the cluster's (the real apiserver signs with RS256; aksemu only needs
// its own API to accept them). Expiry is a year: the kubelet asks for an hour, and the apiserver's
// --service-account-extend-token-expiration (on in AKS) extends projected tokens to a year
// (kubernetes pkg/serviceaccount/claims.go, ExpirationExtensionSeconds). Nothing here logs a token or the key.
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';
const ISSUER = 'https://kubernetes.default.svc.cluster.local';
const YEAR_S = 365 * 24 * 3600;
/** A token past this length is not one of ours (ours are well under 2 KiB); nothing longer is parsed. */
const MAX_TOKEN_CHARS = 8192;

/** A cluster's signing key and the CA its pods get as ca.crt. */
export interface ServiceAccountIssuer {
  key: Buffer;
  caPem: string;
}

export interface TokenSubject {
  namespace: string;
  serviceAccount: string;
  pod: { name: string; uid: string };
  node: string;
}

const b64 = (v: string | Buffer) => Buffer.from(v).toString('base64url');

function sign(key: Buffer, data: string): Buffer {
  return createHmac('sha256', key).update(data).digest();
}

/** A token for a pod's service account, valid a year from now. */
export function issueServiceAccountToken(key: Buffer, who: TokenSubject, now = Date.now()): string {
  const iat = Math.floor(now / 1000);
  return signedToken(key, {
    aud: [ISSUER],
    exp: iat + YEAR_S,
    iat,
    iss: ISSUER,
    'kubernetes.io': {
      namespace: who.namespace,
      node: { name: who.node },
      pod: who.pod,
      serviceaccount: { name: who.serviceAccount },
      warnafter: iat + 3607,
    },
    nbf: iat,
    sub: `system:serviceaccount:${who.namespace}:${who.serviceAccount}`,
  });
}

/** What a TokenRequest asks for (serviceaccounts/token): the account, its audiences, lifetime and bound object. */
export interface RequestedToken {
  namespace: string;
  serviceAccount: { name: string; uid: string };
  audiences: readonly string[];
  expirationSeconds: number;
  /** The pod, secret or node the token is bound to (pkg/serviceaccount/claims.go's claims of each). */
  bound?: { kind: 'pod' | 'secret' | 'node'; name: string; uid: string };
}

/** The API's own audience: what a TokenRequest without audiences gets. */
export const API_AUDIENCE = ISSUER;

/** A TokenRequest's token and its expiry (ms). */
export function issueRequestedToken(key: Buffer, req: RequestedToken, now = Date.now()): { token: string; expires: number } {
  const iat = Math.floor(now / 1000);
  const exp = iat + req.expirationSeconds;
  const bound = req.bound ? { [req.bound.kind]: { name: req.bound.name, uid: req.bound.uid } } : {};
  const token = signedToken(key, {
    aud: req.audiences,
    exp,
    iat,
    iss: ISSUER,
    'kubernetes.io': { namespace: req.namespace, ...bound, serviceaccount: req.serviceAccount },
    nbf: iat,
    sub: `system:serviceaccount:${req.namespace}:${req.serviceAccount.name}`,
  });
  return { token, expires: exp * 1000 };
}

function signedToken(key: Buffer, claims: Record<string, unknown>): string {
  const header = b64(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
  const payload = b64(JSON.stringify(claims));
  return `${header}.${payload}.${b64(sign(key, `${header}.${payload}`))}`;
}

/** The user a token authenticates as (`system:serviceaccount:<ns>:<name>`), or undefined when it is not valid. */
export function serviceAccountOf(key: Buffer, token: string, now = Date.now()): string | undefined {
  if (token.length > MAX_TOKEN_CHARS) return undefined;
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  const [header, payload, signature] = parts as [string, string, string];
  const expected = sign(key, `${header}.${payload}`);
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  let claims: unknown;
  try {
    claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (!claims || typeof claims !== 'object') return undefined;
  const { sub, exp, nbf } = claims as { sub?: unknown; exp?: unknown; nbf?: unknown };
  const t = now / 1000;
  if (typeof sub !== 'string' || !sub.startsWith('system:serviceaccount:')) return undefined;
  if (typeof exp !== 'number' || exp < t || (typeof nbf === 'number' && nbf > t + 60)) return undefined;
  return sub;
}

/** The cluster's signing key, derived from its API credential (kept in the store, so tokens survive a restart). */
export function serviceAccountKey(credentialToken: string): Buffer {
  return createHmac('sha256', credentialToken).update('aksemu service-account token signing key').digest();
}

/**
 * The projected volume's files for a pod (token, ca.crt, namespace), as the kubelet mounts them in each of its
 * containers at SERVICE_ACCOUNT_DIR; none when the pod sets `automountServiceAccountToken: false`.
 */
export function projectedServiceAccount(issuer: ServiceAccountIssuer, pod: ProjectedPod, node: string, now = Date.now()): Map<string, string> | undefined {
  const spec = specOf(pod);
  if (spec.automountServiceAccountToken === false) return undefined;
  const namespace = pod.metadata.namespace ?? 'default';
  const token = issueServiceAccountToken(
    issuer.key,
    {
      namespace,
      serviceAccount: typeof spec.serviceAccountName === 'string' ? spec.serviceAccountName : 'default',
      pod: { name: pod.metadata.name, uid: pod.metadata.uid ?? '' },
      node,
    },
    now,
  );
  return new Map([
    ['token', token],
    ['ca.crt', issuer.caPem],
    ['namespace', namespace],
  ]);
}

/**
 * projectedServiceAccount's files as of now, made when first asked for: the same bytes, but a container that never
 * reads them signs no token (a restart starts the processes of every running container again).
 */
export function projectedServiceAccountWhenRead(issuer: ServiceAccountIssuer, pod: ProjectedPod, node: string): (() => Map<string, string>) | undefined {
  if (specOf(pod).automountServiceAccountToken === false) return undefined;
  const now = Date.now();
  let files: Map<string, string> | undefined;
  return () => (files ??= projectedServiceAccount(issuer, pod, node, now)!);
}

type ProjectedPod = { metadata: { name: string; namespace?: string; uid?: string }; spec?: unknown };

function specOf(pod: ProjectedPod): { automountServiceAccountToken?: unknown; serviceAccountName?: unknown } {
  return typeof pod.spec === 'object' && pod.spec !== null ? pod.spec : {};
}
