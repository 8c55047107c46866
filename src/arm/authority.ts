// The ADFS-style authority at /adfs: OIDC discovery, signing keys, and the OAuth2 token endpoint
// (client credentials). ADFS, because MSAL then skips instance discovery against the internet
// (docs/clients.md §1.4). Errors use AAD's OAuth JSON, which az and MSAL print.
import { randomUUID, timingSafeEqual } from 'node:crypto';
import type { Identity } from './identity.js';
import { acceptedAudiences, type TokenAuthority } from './auth.js';

/** Long enough for long test runs without a refresh (MSAL reuses a token until near expiry). */
const TOKEN_LIFETIME_SECONDS = 86399;

export function authorityUrl(baseUrl: string): string {
  return `${baseUrl}/adfs`;
}

export function openidConfiguration(baseUrl: string, authority: TokenAuthority): Record<string, unknown> {
  const adfs = authorityUrl(baseUrl);
  return {
    issuer: adfs,
    // ADFS names the issuer of access tokens separately; ours is AAD's, so it survives a port change.
    access_token_issuer: authority.issuer,
    authorization_endpoint: `${adfs}/oauth2/authorize`,
    token_endpoint: `${adfs}/oauth2/token`,
    jwks_uri: `${adfs}/discovery/keys`,
    response_types_supported: ['code', 'id_token', 'code id_token', 'token'],
    grant_types_supported: ['client_credentials'],
    subject_types_supported: ['pairwise'],
    id_token_signing_alg_values_supported: ['RS256'],
    token_endpoint_auth_methods_supported: ['client_secret_post', 'client_secret_basic'],
    scopes_supported: ['openid'],
  };
}

interface OAuthResponse {
  status: number;
  body: Record<string, unknown>;
}

function oauthError(status: number, error: string, aadsts: number, description: string): OAuthResponse {
  const traceId = randomUUID();
  const correlationId = randomUUID();
  const timestamp = new Date()
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, 'Z');
  return {
    status,
    body: {
      error,
      error_description: `AADSTS${aadsts}: ${description}\r\nTrace ID: ${traceId}\r\nCorrelation ID: ${correlationId}\r\nTimestamp: ${timestamp}`,
      error_codes: [aadsts],
      timestamp,
      trace_id: traceId,
      correlation_id: correlationId,
    },
  };
}

const missingParameter = (name: string) => oauthError(400, 'invalid_request', 900144, `The request body must contain the following parameter: '${name}'.`);

function secretsEqual(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The audience a token is asked for: v2 `scope` ({resource}/.default) or v1 `resource`. */
function requestedAudience(form: URLSearchParams): { audience?: string; error?: OAuthResponse } {
  const resource = form.get('resource');
  if (resource) return { audience: resource };
  const scope = form.get('scope');
  if (!scope) return { error: missingParameter('scope') };
  const dotDefault = scope.split(/\s+/).find((s) => s.endsWith('/.default'));
  if (!dotDefault) {
    return {
      error: oauthError(
        400,
        'invalid_scope',
        1002012,
        `The provided value for scope ${scope} is not valid. Client credential flows must have a scope value with /.default suffixed to the resource identifier (application ID URI).`,
      ),
    };
  }
  return { audience: dotDefault.slice(0, -'/.default'.length) };
}

/** POST /adfs/oauth2/token. form is the urlencoded body; basic is the Authorization header, if any. */
export async function tokenRequest(
  form: URLSearchParams,
  authorization: string | undefined,
  identity: Identity,
  authority: TokenAuthority,
  baseUrl: string,
): Promise<OAuthResponse> {
  const grantType = form.get('grant_type');
  if (!grantType) return missingParameter('grant_type');
  if (grantType !== 'client_credentials') {
    return oauthError(400, 'unsupported_grant_type', 70003, `The app requested an unsupported grant type '${grantType}'.`);
  }
  let clientId = form.get('client_id');
  let clientSecret = form.get('client_secret');
  const basic = /^Basic\s+(\S+)$/i.exec(authorization ?? '');
  if (basic) {
    const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon > 0) {
      clientId ??= decodeURIComponent(decoded.slice(0, colon));
      clientSecret ??= decodeURIComponent(decoded.slice(colon + 1));
    }
  }
  if (!clientId) return missingParameter('client_id');
  if (clientId !== identity.clientId) {
    return oauthError(
      400,
      'unauthorized_client',
      700016,
      `Application with identifier '${clientId}' was not found in the directory '${identity.tenantId}'. This can happen if the application has not been installed by the administrator of the tenant or consented to by any user in the tenant. You may have sent your authentication request to the wrong tenant.`,
    );
  }
  if (!clientSecret) {
    return oauthError(401, 'invalid_client', 7000218, "The request body must contain the following parameter: 'client_assertion' or 'client_secret'.");
  }
  if (!secretsEqual(clientSecret, identity.clientSecret)) {
    return oauthError(
      401,
      'invalid_client',
      7000215,
      `Invalid client secret provided. Ensure the secret being sent in the request is the client secret value, not the client secret ID, for a secret added to app '${clientId}'.`,
    );
  }
  const { audience, error } = requestedAudience(form);
  if (error) return error;
  // Tokens are issued only for audiences ARM calls accept.
  if (!acceptedAudiences(baseUrl).includes(audience!)) {
    return oauthError(
      400,
      'invalid_resource',
      500011,
      `The resource principal named ${audience} was not found in the tenant named ${identity.tenantId}. This can happen if the application has not been installed by the administrator of the tenant or consented to by any user in the tenant. You might have sent your authentication request to the wrong tenant.`,
    );
  }
  const accessToken = await authority.issue({
    appId: identity.clientId,
    objectId: identity.servicePrincipalObjectId,
    audience: audience!,
    lifetimeSeconds: TOKEN_LIFETIME_SECONDS,
  });
  const expiresOn = Math.floor(Date.now() / 1000) + TOKEN_LIFETIME_SECONDS;
  return {
    status: 200,
    body: {
      token_type: 'Bearer',
      expires_in: TOKEN_LIFETIME_SECONDS,
      ext_expires_in: TOKEN_LIFETIME_SECONDS,
      expires_on: String(expiresOn),
      resource: audience,
      access_token: accessToken,
    },
  };
}
