// A request body → the JSON value it carries: JSON, YAML (kubectl's apply-patch, users' curl) or protobuf
// (client-go's typed clients), bounded before anything recursive sees it: JSON is depth-checked as text
// before it is parsed, YAML's aliases are capped (an alias bomb expands exponentially), and every value is
// depth-checked once decoded (limits.ts).
import { parse as parseYaml } from 'yaml';
import { decodeProtobufBody } from './protobuf/request-body.js';
import { badRequest, KubeError } from '../apimachinery/status.js';
import { checkDepth, checkTextDepth } from './validation/limits.js';

/**
 * The yaml package's guard against alias expansion ("billion laughs"): at most this many alias nodes, counted
 * with the size of what they expand to. 100 is its default; kept explicit so a library change cannot lift it.
 */
const YAML_MAX_ALIASES = 100;

export interface Body {
  contentType?: string;
  /** The body as UTF-8 text. */
  body?: string;
  /** The body's bytes, for protobuf. */
  bytes?: Uint8Array;
}

function decode(req: Body & { body: string }): unknown {
  const type = req.contentType ?? '';
  if (type.includes('protobuf')) return decodeProtobufBody(req.bytes ?? Buffer.from(req.body));
  try {
    if (type.includes('yaml')) return parseYaml(req.body, { maxAliasCount: YAML_MAX_ALIASES });
    checkTextDepth(req.body);
    return JSON.parse(req.body);
  } catch (e) {
    if (e instanceof KubeError) throw e;
    throw badRequest(`the body of the request was in an unknown format: ${(e as Error).message}`);
  }
}

/** The decoded body; 400 when there is none, it does not parse, or it nests too deep. */
export function parseBody(req: Body): unknown {
  if (!req.body) throw badRequest('the body of the request was in an unknown format - accepted media types include: application/json, application/yaml');
  const value = decode(req as Body & { body: string });
  checkDepth(value);
  return value;
}
