// How the CustomResourceDefinition kind itself behaves on writes and deletes (the apiextensions registry's
// strategy, staging/src/k8s.io/apiextensions-apiserver/pkg/registry/customresourcedefinition/strategy.go and
// etcd.go): v1 defaulting (listKind, singular, conversion None), status owned by the controllers with
// storedVersions kept to include the storage version, validation (validate.ts), and DELETE that marks the CRD
// Terminating with the cleanup finalizer; the catalog then removes its objects and the CRD (catalog.ts).
import { isPlainObject } from '../../../http/own.js';
import type { KindBehaviour } from '../kind-behaviour.js';
import { clone, type KubeObject } from '../../apimachinery/object.js';
import { invalidObject } from '../../apimachinery/status.js';
import { k8sTime } from '../../apimachinery/time.js';
import { conditionsOf, withCondition } from './conditions.js';
import { CLEANUP_FINALIZER, CRD_GROUP } from './definition.js';
import { validateDefinition } from './validate.js';

type Obj = Record<string, unknown>;

/** SetDefaults_CustomResourceDefinitionSpec (apis/apiextensions/v1/defaults.go). */
function specDefaults(spec: Obj): void {
  const names = isPlainObject(spec['names']) ? spec['names'] : undefined;
  if (names && typeof names['kind'] === 'string' && names['kind'] !== '') {
    if (!names['listKind']) names['listKind'] = `${names['kind']}List`;
    if (!names['singular']) names['singular'] = names['kind'].toLowerCase();
  }
  if (!isPlainObject(spec['conversion'])) spec['conversion'] = { strategy: 'None' };
}

/** The status a write keeps: the stored one (or a new one), with the storage version among storedVersions. */
function keptStatus(crd: KubeObject, existing: KubeObject | undefined): Obj {
  const status: Obj = existing && isPlainObject(existing['status']) ? clone(existing['status']) : { acceptedNames: { plural: '', kind: '' } };
  const stored = Array.isArray(status['storedVersions']) ? [...(status['storedVersions'] as string[])] : [];
  const spec = isPlainObject(crd['spec']) ? crd['spec'] : {};
  for (const v of Array.isArray(spec['versions']) ? spec['versions'] : []) {
    if (isPlainObject(v) && v['storage'] === true && typeof v['name'] === 'string' && !stored.includes(v['name'])) stored.push(v['name']);
  }
  status['storedVersions'] = stored;
  return status;
}

export const DEFINITION_KIND: KindBehaviour = {
  defaults: (crd, existing) => {
    if (isPlainObject(crd['spec'])) specDefaults(crd['spec']);
    crd['status'] = keptStatus(crd, existing);
  },
  admit: (crd, existing) => {
    const causes = validateDefinition(crd, existing);
    if (causes.length > 0) throw invalidObject('CustomResourceDefinition', CRD_GROUP, crd.metadata.name, causes);
  },
  // The first DELETE marks the CRD and adds the cleanup finalizer (etcd.go's Delete); the catalog's
  // finalizer then removes every object of the kind and the CRD. A second DELETE changes nothing.
  deferDeletion: (crd, host) => {
    if (crd.metadata.deletionTimestamp) return crd;
    const marked = clone(crd);
    marked.metadata.deletionTimestamp = k8sTime(Date.now());
    marked.metadata.deletionGracePeriodSeconds = 0;
    const finalizers = Array.isArray(marked.metadata['finalizers']) ? (marked.metadata['finalizers'] as string[]) : [];
    if (!finalizers.includes(CLEANUP_FINALIZER)) marked.metadata['finalizers'] = [...finalizers, CLEANUP_FINALIZER];
    const status = isPlainObject(marked['status']) ? marked['status'] : {};
    status['conditions'] = withCondition(conditionsOf(marked), {
      type: 'Terminating',
      status: 'True',
      reason: 'InstanceDeletionPending',
      message: 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon',
    });
    marked['status'] = status;
    return host.write(marked);
  },
};
