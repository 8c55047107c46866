// How the objects of one served CRD version behave (the apiextensions customresource registry): the body
// decodes as any object with ObjectMeta, defaults and pruning by the version's schema, then validation with
// the apiserver's 422 wording (schema.ts); status belongs to the status subresource when the version has one;
// the scale subresource maps the CRD's replica paths; reads carry the requested version (conversion None only
// rewrites apiVersion); `kubectl get` prints the version's additionalPrinterColumns (columns.ts).
import { isPlainObject, own, setOwn } from '../../../http/own.js';
import type { KindBehaviour, SubresourceView } from '../kind-behaviour.js';
import { customFieldLabels } from '../field-labels.js';
import { clone, type KubeObject } from '../../apimachinery/object.js';
import { cannotDecode, fieldError, invalidObject, KubeError } from '../../apimachinery/status.js';
import { decodeError } from '../validation/shape.js';
import { columnsPrinter, evaluate, parseJsonPath } from './columns.js';
import type { CrdVersion, Definition, ScaleSpec } from './definition.js';
import { applyDefaults, prune, unknownFields, validateObjectAgainst } from './schema.js';

/** Sets a `.a.b.c` path's value, making the objects on the way. */
function setPath(obj: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.').filter((p) => p !== '');
  let cur = obj;
  for (const p of parts.slice(0, -1)) {
    const next = own(cur, p);
    if (!isPlainObject(next)) setOwn(cur, p, {});
    cur = own(cur, p) as Record<string, unknown>;
  }
  setOwn(cur, parts[parts.length - 1]!, value);
}

function valueAt(obj: unknown, path: string): unknown {
  const steps = parseJsonPath(path);
  return steps ? evaluate(steps, obj)[0] : undefined;
}

/** The autoscaling/v1 Scale of a custom resource (its replicas and selector read through the CRD's paths). */
function scaleView(spec: ScaleSpec, group: string, kind: string): SubresourceView {
  return {
    read: (parent) => {
      const { name, namespace, uid, resourceVersion, creationTimestamp } = parent.metadata;
      const replicas = valueAt(parent, spec.specReplicasPath);
      const current = valueAt(parent, spec.statusReplicasPath);
      const selector = spec.labelSelectorPath ? valueAt(parent, spec.labelSelectorPath) : undefined;
      return {
        kind: 'Scale',
        apiVersion: 'autoscaling/v1',
        metadata: { name, namespace, uid, resourceVersion, creationTimestamp },
        spec: { replicas: typeof replicas === 'number' ? replicas : 0 },
        status: { replicas: typeof current === 'number' ? current : 0, ...(typeof selector === 'string' ? { selector } : {}) },
      };
    },
    write: (parent, body) => {
      const replicas = Number(own(own(body, 'spec') ?? {}, 'replicas') ?? 0);
      if (replicas < 0) {
        throw invalidObject(kind, group, parent.metadata.name, [fieldError.invalid('spec.replicas', replicas, 'should be greater than or equal to 0')]);
      }
      const next = clone(parent);
      setPath(next, spec.specReplicasPath, replicas);
      return next;
    },
  };
}

/** What the catalog keeps current about a served CRD without compiling it again. */
export interface LiveDefinition {
  /** Its DELETE has begun (creates are refused until it is gone). */
  terminating: boolean;
}

/** The behaviour of a CRD's objects served at `version`. */
export function customKind(d: Definition, version: CrdVersion, multiVersion: boolean, live: LiveDefinition): KindBehaviour {
  const apiVersion = `${d.group}/${version.name}`;
  return {
    ...(version.status ? { controllerStatus: {} } : {}),
    // fieldValidation=Strict refuses the fields pruning would drop (the strict decoder's error).
    decode: (body, strict) => {
      const e = decodeError('', body);
      if (e) throw cannotDecode(d.names.kind, version.name, e);
      const unknown = strict ? unknownFields(body, version.schema) : [];
      if (unknown.length > 0) {
        throw cannotDecode(d.names.kind, version.name, `strict decoding error: ${unknown.map((f) => `unknown field "${f}"`).join(', ')}`);
      }
    },
    defaults: (obj) => {
      applyDefaults(obj, version.schema);
      prune(obj, version.schema, true);
    },
    admit: (obj, existing) => {
      // customresource_handler.go: no creates while the CRD's objects are being removed.
      if (!existing && live.terminating) {
        throw new KubeError(405, 'MethodNotAllowed', 'create not allowed while custom resource definition is terminating', {
          group: d.group,
          kind: d.names.plural,
        });
      }
      const causes = validateObjectAgainst(obj, version.schema);
      if (causes.length > 0) throw invalidObject(d.names.kind, d.group, obj.metadata.name, causes);
    },
    ...(multiVersion ? { view: (obj: KubeObject) => (obj.apiVersion === apiVersion ? obj : { ...obj, apiVersion }) } : {}),
    ...(version.scale ? { scale: scaleView(version.scale, d.group, d.names.kind) } : {}),
    fieldLabels: customFieldLabels(version.selectable),
    printer: columnsPrinter(version.columns),
  };
}
