// A request body in application/vnd.kubernetes.protobuf (what client-go's typed clients, and so kubectl
// 1.32+'s `create deployment|configmap|secret|namespace|serviceaccount|service`, send) → the JSON object the
// apiserver would have decoded. Replies stay JSON: kubectl accepts them.
import { badRequest, KubeError } from '../status.js';
import { APPS_V1 } from './apps-v1.js';
import { CERTIFICATES_V1 } from './certificates-v1.js';
import { CORE_V1 } from './core-v1.js';
import { decodeMessage } from './decode.js';
import { openEnvelope } from './envelope.js';
import { META_V1 } from './meta-v1.js';
import { POLICY_V1 } from './policy-v1.js';
import { RBAC_V1 } from './rbac-v1.js';
import { SCHEDULING_V1 } from './scheduling-v1.js';
import { Schema } from './schema.js';
import { WireError } from './wire.js';

export const SCHEMA = new Schema([META_V1, CORE_V1, APPS_V1, RBAC_V1, POLICY_V1, CERTIFICATES_V1, SCHEDULING_V1]);

const ACCEPTED = 'accepted media types include: application/json, application/yaml, application/apply-patch+yaml';

export function decodeProtobufBody(bytes: Uint8Array): Record<string, unknown> {
  try {
    const env = openEnvelope(bytes);
    if (env.contentEncoding !== '' || (env.contentType !== '' && env.contentType !== 'application/vnd.kubernetes.protobuf')) {
      throw unsupported(`protobuf envelopes with contentEncoding "${env.contentEncoding}", contentType "${env.contentType}" are not supported`);
    }
    const message = SCHEMA.messageFor(env.apiVersion, env.kind);
    if (!message) throw unsupported(`no protobuf decoding for ${env.apiVersion}, Kind=${env.kind}: send it as JSON`);
    return { kind: env.kind, apiVersion: env.apiVersion, ...decodeMessage(SCHEMA, message, env.raw) };
  } catch (e) {
    if (e instanceof WireError) throw badRequest(`the body of the request was in an unknown format: ${e.message}`);
    throw e;
  }
}

function unsupported(why: string): KubeError {
  return new KubeError(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - ${ACCEPTED}; ${why}`);
}
