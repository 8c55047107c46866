// A request body in application/vnd.kubernetes.protobuf (what client-go's typed clients, and so kubectl
// 1.32+'s `create` subcommands, send) → the JSON object the apiserver would have decoded, for every kind of the
// group versions the cluster serves (generated/, from Kubernetes' generated.proto). Replies stay JSON: kubectl
// accepts them.
import { badRequest, KubeError } from '../../apimachinery/status.js';
import { decodeMessage } from './decode.js';
import { openEnvelope } from './envelope.js';
import { GENERATED_TABLES } from './generated/index.js';
import { Schema } from './schema.js';
import { WireError } from './wire.js';

export const SCHEMA = new Schema(GENERATED_TABLES);

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
