// REST routes of Microsoft.Compute/virtualMachines, long-running as the Compute RP runs them: a PUT is
// validated and written in the request (201/200, provisioningState Creating/Updating, Azure-AsyncOperation)
// and the operation finishes it Succeeded; a DELETE answers 202 with the VM in Deleting, and the operation
// removes it. The VM's NICs stay.
import { resourceNotFound } from '../../arm/errors.js';
import type { OperationKind } from '../../arm/lro.js';
import type { RequestContext, Route } from '../../arm/provider.js';
import { listBody, param, readGroup, writeGroup } from '../network/http.js';
import { NAMESPACE, VM_TYPE, type VirtualMachine } from './models.js';
import { virtualMachineModel } from './schema.js';
import { findVirtualMachine, instanceView, renderVirtualMachine, virtualMachinesIn, virtualMachinesOf, writeVirtualMachine, type VmInput } from './vmModel.js';

const WRITE_KIND = 'Microsoft.Compute/virtualMachines/write';
const DELETE_KIND = 'Microsoft.Compute/virtualMachines/delete';

const SUBSCRIPTION = '/subscriptions/{subscriptionId}';
const IN_GROUP = `${SUBSCRIPTION}/resourceGroups/{resourceGroupName}/providers/Microsoft.Compute`;
const VM = `${IN_GROUP}/virtualMachines/{vmName}`;
const TYPE = 'virtualMachines';

function vmId(ctx: RequestContext, group: { id: string }): string {
  return `${group.id}/providers/${VM_TYPE}/${param(ctx, 'vmName')}`;
}

function requireVm(ctx: RequestContext): VirtualMachine {
  const group = readGroup(ctx);
  const vm = findVirtualMachine(ctx.store, vmId(ctx, group));
  if (!vm) throw resourceNotFound(VM_TYPE, param(ctx, 'vmName'), group.name);
  return vm;
}

const expandsInstanceView = (ctx: RequestContext) => ctx.query.get('$expand')?.toLowerCase() === 'instanceview';

function putVm(ctx: RequestContext) {
  const id = vmId(ctx, writeGroup(ctx));
  const input = (ctx.body ?? {}) as VmInput;
  const response: { status: number; body?: unknown } = { status: 200 };
  return ctx.lro.begin(ctx, {
    kind: WRITE_KIND,
    namespace: NAMESPACE,
    location: input.location ?? '',
    resourceId: id,
    method: 'PUT',
    input: { id },
    prepare: () => {
      const before = findVirtualMachine(ctx.store, id);
      const { vm, created } = writeVirtualMachine(ctx.store, id, input, before ? 'Updating' : 'Creating');
      response.status = created ? 201 : 200;
      response.body = vm;
    },
    response,
    headers: 'async-operation',
  });
}

function deleteVm(ctx: RequestContext) {
  const vm = findVirtualMachine(ctx.store, vmId(ctx, readGroup(ctx)));
  if (!vm) return { status: 204 };
  return ctx.lro.begin(ctx, {
    kind: DELETE_KIND,
    namespace: NAMESPACE,
    location: vm.location,
    resourceId: vm.id,
    method: 'DELETE',
    input: { id: vm.id },
    prepare: () => ctx.store.put(vm.id, { ...vm, properties: { ...vm.properties, provisioningState: 'Deleting' } }),
    response: { status: 202 },
    headers: 'async-operation+location',
  });
}

export const virtualMachineOperationKinds: OperationKind[] = [
  {
    kind: WRITE_KIND,
    run(op, { store }) {
      const vm = findVirtualMachine(store, (op.input as { id: string }).id);
      if (vm) store.put(vm.id, { ...vm, properties: { ...vm.properties, provisioningState: 'Succeeded' } });
    },
    fail(op, { store }) {
      const vm = findVirtualMachine(store, (op.input as { id: string }).id);
      if (vm) store.put(vm.id, { ...vm, properties: { ...vm.properties, provisioningState: 'Failed' } });
    },
  },
  {
    kind: DELETE_KIND,
    run(op, { store }) {
      store.delete((op.input as { id: string }).id);
    },
  },
];

export const virtualMachineRoutes: Route[] = [
  { method: 'PUT', path: VM, resourceType: TYPE, body: virtualMachineModel, bodyRequired: true, handle: putVm },
  { method: 'GET', path: VM, resourceType: TYPE, handle: (ctx) => ({ status: 200, body: renderVirtualMachine(requireVm(ctx), expandsInstanceView(ctx)) }) },
  { method: 'GET', path: `${VM}/instanceView`, resourceType: TYPE, handle: (ctx) => ({ status: 200, body: instanceView(requireVm(ctx)) }) },
  { method: 'DELETE', path: VM, resourceType: TYPE, handle: deleteVm },
  { method: 'GET', path: `${IN_GROUP}/virtualMachines`, resourceType: TYPE, handle: (ctx) => listBody(virtualMachinesIn(ctx.store, readGroup(ctx).id)) },
  {
    method: 'GET',
    path: `${SUBSCRIPTION}/providers/Microsoft.Compute/virtualMachines`,
    resourceType: TYPE,
    handle: (ctx) => listBody(virtualMachinesOf(ctx.store, param(ctx, 'subscriptionId'))),
  },
];
