// Bearer tokens: signed JWTs in AAD's v1 shape, issued by the token endpoint and checked on every
// ARM call. The signing key lives in the store, so tokens survive a restart.
import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, jwtVerify, SignJWT, errors as joseErrors, type JWK } from 'jose';
import { SIGNING_KEY } from '../store/keys.js';
import type { Store } from '../store/store.js';
import {
  authenticationHeaderInvalid,
  authenticationHeaderMissing,
  expiredAuthenticationToken,
  invalidAuthenticationToken,
  invalidAuthenticationTokenAudience,
  invalidAuthenticationTokenTenant,
} from './errors.js';

/** The audiences ARM accepts, in the order its error lists them. */
export const ARM_AUDIENCES: readonly string[] = [
  'https://management.core.windows.net/',
  'https://management.core.windows.net',
  'https://management.azure.com/',
  'https://management.azure.com',
];

/** What a token's aud may be: ARM's audiences, or this server's own URL (the SDKs' default scope is {endpoint}/.default). */
export function acceptedAudiences(baseUrl: string): string[] {
  return [...ARM_AUDIENCES, `${baseUrl}/`, baseUrl];
}

/** Who made an ARM call. */
export interface Principal {
  appId: string;
  objectId: string;
  tenantId: string;
}

interface SigningKey {
  kid: string;
  privateJwk: JWK;
  publicJwk: JWK;
}

type ImportedKey = Awaited<ReturnType<typeof importJWK>>;

const ALG = 'RS256';
/** AAD tolerates five minutes of clock skew. */
const CLOCK_TOLERANCE_S = 300;
/** AAD's access tokens live at most a day; one issued longer ago is not AAD's. */
const MAX_TOKEN_AGE_S = 86400;
/** What every AAD access token carries; a token without one of them is not accepted. */
const REQUIRED_CLAIMS = ['exp', 'iat', 'nbf', 'iss', 'aud'];

async function loadOrCreateKey(store: Store): Promise<SigningKey> {
  const existing = store.get<SigningKey>(SIGNING_KEY);
  if (existing) return existing;
  const { privateKey, publicKey } = await generateKeyPair(ALG, { extractable: true });
  const publicJwk = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(publicJwk);
  const key: SigningKey = { kid, privateJwk: { ...(await exportJWK(privateKey)), kid, alg: ALG }, publicJwk: { ...publicJwk, kid, alg: ALG, use: 'sig' } };
  // Another start may have raced us to it; the first key written wins.
  return store.transaction(() => {
    const raced = store.get<SigningKey>(SIGNING_KEY);
    if (raced) return raced;
    store.put(SIGNING_KEY, key);
    return key;
  });
}

interface IssueRequest {
  appId: string;
  objectId: string;
  audience: string;
  lifetimeSeconds: number;
}

export class TokenAuthority {
  private constructor(
    readonly tenantId: string,
    private readonly key: SigningKey,
    private readonly privateKey: ImportedKey,
    private readonly publicKey: ImportedKey,
  ) {}

  static async load(store: Store, tenantId: string): Promise<TokenAuthority> {
    const key = await loadOrCreateKey(store);
    return new TokenAuthority(tenantId, key, await importJWK(key.privateJwk, ALG), await importJWK(key.publicJwk, ALG));
  }

  /** AAD's v1 issuer; independent of the port, so tokens stay valid across restarts. */
  get issuer(): string {
    return `https://sts.windows.net/${this.tenantId}/`;
  }

  jwks(): { keys: JWK[] } {
    return { keys: [this.key.publicJwk] };
  }

  async issue(request: IssueRequest): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({
      appid: request.appId,
      appidacr: '1',
      idtyp: 'app',
      oid: request.objectId,
      tid: this.tenantId,
      ver: '1.0',
    })
      .setProtectedHeader({ alg: ALG, typ: 'JWT', kid: this.key.kid })
      .setIssuer(this.issuer)
      .setAudience(request.audience)
      .setSubject(request.objectId)
      .setIssuedAt(now)
      .setNotBefore(now - CLOCK_TOLERANCE_S)
      .setExpirationTime(now + request.lifetimeSeconds)
      .sign(this.privateKey);
  }

  /**
   * Checks an Authorization header as ARM does and returns the caller, or throws ARM's 401.
   * baseUrl is this server's URL as the client reached it.
   */
  async verify(authorization: string | undefined, baseUrl: string, authorizationUri: string): Promise<Principal> {
    if (authorization === undefined || authorization.trim() === '') throw authenticationHeaderMissing(authorizationUri);
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!match) throw authenticationHeaderInvalid(authorizationUri);
    let payload;
    try {
      // The algorithm is pinned (RS256 with our key only), and so are the claims AAD always sets.
      ({ payload } = await jwtVerify(match[1]!, this.publicKey, {
        algorithms: [ALG],
        clockTolerance: CLOCK_TOLERANCE_S,
        requiredClaims: REQUIRED_CLAIMS,
        maxTokenAge: MAX_TOKEN_AGE_S,
      }));
    } catch (err) {
      if (err instanceof joseErrors.JWTExpired && err.claim === 'exp' && typeof err.payload.exp === 'number') {
        throw expiredAuthenticationToken(authorizationUri, new Date(err.payload.exp * 1000), new Date());
      }
      throw invalidAuthenticationToken(authorizationUri);
    }
    if (payload.iss !== this.issuer) throw invalidAuthenticationTokenTenant(authorizationUri, String(payload.iss), this.tenantId);
    const allowed = acceptedAudiences(baseUrl);
    const audiences = Array.isArray(payload.aud) ? payload.aud : [payload.aud ?? ''];
    if (!audiences.some((aud) => allowed.includes(aud))) {
      throw invalidAuthenticationTokenAudience(authorizationUri, audiences.join(','), allowed);
    }
    return { appId: String(payload['appid'] ?? ''), objectId: String(payload['oid'] ?? ''), tenantId: String(payload['tid'] ?? '') };
  }
}
