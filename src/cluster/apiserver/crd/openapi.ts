// The OpenAPI v3 schema a CRD version publishes (what `kubectl explain` reads): the version's
// openAPIV3Schema with apiVersion, kind and metadata described as the apiserver's builder adds them
// (staging/src/k8s.io/apiextensions-apiserver/pkg/controller/openapi/builder/builder.go), named by the reversed
// group, the version and the kind (com.example.stable.v1.CronTab), with its group-version-kind extension.
import { isPlainObject } from '../../../http/own.js';
import type { ServedVersion } from '../catalog.js';

const API_VERSION_DESCRIPTION =
  'APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources';
const KIND_DESCRIPTION =
  'Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds';
const METADATA_DESCRIPTION =
  "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";

/** The schema name: the group reversed, then version and kind. */
export function schemaName(group: string, version: string, kind: string): string {
  return [...group.split('.').reverse(), version, kind].join('.');
}

/** components.schemas entries for one served CRD version (the kind and its list). */
export function customSchemas(s: ServedVersion): Record<string, unknown> {
  const { group, version, kind } = s.r;
  const raw = isPlainObject(s.version.rawSchema) ? s.version.rawSchema : { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  const properties = isPlainObject(raw['properties']) ? raw['properties'] : {};
  const gvk = [{ group, version, kind }];
  const name = schemaName(group, version, kind);
  return {
    [name]: {
      ...raw,
      type: 'object',
      properties: {
        ...properties,
        apiVersion: { type: 'string', description: API_VERSION_DESCRIPTION },
        kind: { type: 'string', description: KIND_DESCRIPTION },
        metadata: { type: 'object', description: METADATA_DESCRIPTION },
      },
      'x-kubernetes-group-version-kind': gvk,
    },
    [`${name}List`]: {
      type: 'object',
      description: `${kind}List is a list of ${kind}`,
      required: ['items'],
      properties: {
        apiVersion: { type: 'string', description: API_VERSION_DESCRIPTION },
        items: {
          type: 'array',
          description: `List of ${s.definition.names.plural}. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md`,
          items: { $ref: `#/components/schemas/${name}` },
        },
        kind: { type: 'string', description: KIND_DESCRIPTION },
        metadata: { type: 'object', description: 'Standard list metadata.' },
      },
      'x-kubernetes-group-version-kind': [{ group, version, kind: `${kind}List` }],
    },
  };
}
