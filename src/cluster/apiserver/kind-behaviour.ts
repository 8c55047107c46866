// The shape of a kind's behaviour (kinds.ts declares one per built-in kind, apiserver/crd/custom.ts one per CRD version):
// the hooks the API (api.ts) calls on a write, a read or a delete, and what those hooks may use of the cluster.
import type { KubeObject } from '../apimachinery/object.js';
import type { ServiceNetwork } from './admission/service-ips.js';
import type { FieldLabels } from './field-labels.js';
import type { Printer } from './printers.js';
import type { ObjectStore } from './storage/store.js';

/** What a kind's hooks may use of the cluster whose API runs them. */
export interface KindHost {
  readonly objects: ObjectStore;
  /** The cluster's service network, for Service addresses. */
  serviceNetwork(): ServiceNetwork;
  /** The cluster's Kubernetes version (the apiserver's words change with it). */
  kubernetesVersion(): string;
  /** Writes an object of the kind as the API writes it (size limit, then the view as read). */
  write(obj: KubeObject): KubeObject;
}

/** A subresource served as a view of its parent object (autoscaling/v1 Scale). */
export interface SubresourceView {
  read(parent: KubeObject): KubeObject;
  /** The parent with what a written subresource asks for (already checked as the subresource's kind). */
  write(parent: KubeObject, body: Record<string, unknown>): KubeObject;
}

export interface KindBehaviour {
  /** Stored and written through to the Store (the default), or derived from other records on every start. */
  storage?: 'persisted' | 'derived';
  /**
   * How a written body decodes (throws the apiserver's 400); the kind's Go types (apiserver/validation/shape.ts) without
   * it. `strict`: the request's fieldValidation is Strict (unknown fields refused).
   */
  decode?(body: Record<string, unknown>, strict: boolean): void;
  /**
   * Status belongs to the controllers and kubelets (served as the status subresource): writes of the object
   * keep the stored status, and a new object starts with `initial` whatever the client sent (the strategies'
   * PrepareForCreate / PrepareForUpdate). Without it, a write's status is the body's.
   */
  controllerStatus?: { initial?: unknown };
  /** The defaulting the apiserver applies to a written object (in place), after the status above. */
  defaults?(obj: KubeObject, existing: KubeObject | undefined): void;
  /** Validation and admission after defaulting: throws the apiserver's KubeError; may fill what admission fills. */
  admit?(obj: KubeObject, existing: KubeObject | undefined, host: KindHost): void;
  /** The object as read (lists, gets, watches), computed from the stored one. */
  view?(obj: KubeObject, now: number): KubeObject;
  /** Objects the API computes instead of storing, in one namespace or all. */
  computed?(objects: ObjectStore, namespace: string | undefined): KubeObject[];
  /** The scale subresource. */
  scale?: SubresourceView;
  /** DELETE that does not remove at once: marks the object, writes it and returns it; undefined removes it now. */
  deferDeletion?(existing: KubeObject, host: KindHost): KubeObject | undefined;
  /** The field selectors the kind answers and how each reads (field-labels.ts); metadata.name and .namespace without it. */
  fieldLabels?: FieldLabels;
  /** The columns and cells of `kubectl get` (printers.ts); the default Name / Created At without one. */
  printer?: Printer;
  /** What a write through a subresource other than status and scale keeps of the body (a CSR's approval). */
  subresourceWrites?: Record<string, (existing: KubeObject, written: KubeObject) => KubeObject>;
  /** Writes through the status subresource keep the body's metadata too (pkg/registry/core/node/strategy.go). */
  statusWritesMetadata?: boolean;
  /** Warnings answered on every create and update of the kind (the `Warning: 299 - "..."` header). */
  warnings?: readonly string[];
}
