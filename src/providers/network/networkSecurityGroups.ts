// REST routes of networkSecurityGroups and their securityRules (child resources kept inline).
import type { RequestContext, Route } from '../../arm/provider.js';
import { childNotFound } from './errors.js';
import { IN_GROUP, IN_SUBSCRIPTION, listBody, listInGroup, listInSubscription, param, readGroup, requireTracked, resourceId, writeGroup } from './http.js';
import type { NetworkSecurityGroup } from './models.js';
import {
  findNetworkSecurityGroup,
  removeNetworkSecurityGroup,
  removeSecurityRule,
  renderNetworkSecurityGroup,
  writeNetworkSecurityGroup,
  writeSecurityRule,
  type NsgInput,
  type SecurityRuleInput,
} from './nsgModel.js';
import { beginDelete, beginPut } from './operations.js';
import { networkSecurityGroupModel, securityRuleModel } from './schemas.js';
import { sameId } from '../../ids/compare.js';

const NSGS = 'networkSecurityGroups';
const NSG = `${IN_GROUP}/networkSecurityGroups/{networkSecurityGroupName}`;
const RULE = `${NSG}/securityRules/{securityRuleName}`;

function requireNsg(ctx: RequestContext): NetworkSecurityGroup {
  return requireTracked(ctx, findNetworkSecurityGroup, NSGS, 'networkSecurityGroupName');
}

function putNsg(ctx: RequestContext) {
  const id = resourceId(writeGroup(ctx), NSGS, param(ctx, 'networkSecurityGroupName'));
  const input = (ctx.body ?? {}) as NsgInput;
  return beginPut(ctx, {
    resourceId: id,
    location: input.location ?? '',
    write: () => {
      const { nsg, created } = writeNetworkSecurityGroup(ctx.store, id, input, 'Updating');
      return { created, touched: [nsg.id], body: () => renderNetworkSecurityGroup(nsg) };
    },
  });
}

function deleteNsg(ctx: RequestContext) {
  const nsg = findNetworkSecurityGroup(ctx.store, resourceId(readGroup(ctx), NSGS, param(ctx, 'networkSecurityGroupName')));
  if (!nsg) return { status: 204 };
  return beginDelete(ctx, { resourceId: nsg.id, location: nsg.location, remove: () => removeNetworkSecurityGroup(ctx.store, nsg) });
}

function putRule(ctx: RequestContext) {
  const nsg = requireNsg(ctx);
  writeGroup(ctx);
  const name = param(ctx, 'securityRuleName');
  return beginPut(ctx, {
    resourceId: `${nsg.id}/securityRules/${name}`,
    location: nsg.location,
    write: () => {
      const { rule, created } = writeSecurityRule(ctx.store, nsg, name, (ctx.body ?? {}) as SecurityRuleInput, 'Updating');
      // The rule's state lives in its group's record: the group is what the operation finishes.
      return { created, touched: [nsg.id], body: () => rule };
    },
  });
}

function getRule(ctx: RequestContext) {
  const nsg = requireNsg(ctx);
  const name = param(ctx, 'securityRuleName');
  const rule = nsg.properties.securityRules.find((r) => sameId(r.name, name));
  if (!rule) throw childNotFound(`${nsg.id}/securityRules/${name}`);
  return { status: 200, body: rule };
}

function deleteRule(ctx: RequestContext) {
  const nsg = findNetworkSecurityGroup(ctx.store, resourceId(readGroup(ctx), NSGS, param(ctx, 'networkSecurityGroupName')));
  const name = param(ctx, 'securityRuleName');
  if (!nsg || !nsg.properties.securityRules.some((r) => sameId(r.name, name))) return { status: 204 };
  return beginDelete(ctx, { resourceId: `${nsg.id}/securityRules/${name}`, location: nsg.location, remove: () => removeSecurityRule(ctx.store, nsg, name) });
}

export const networkSecurityGroupRoutes: Route[] = [
  { method: 'PUT', path: NSG, resourceType: NSGS, body: networkSecurityGroupModel, bodyRequired: true, handle: putNsg },
  { method: 'GET', path: NSG, resourceType: NSGS, handle: (ctx) => ({ status: 200, body: renderNetworkSecurityGroup(requireNsg(ctx)) }) },
  { method: 'DELETE', path: NSG, resourceType: NSGS, handle: deleteNsg },
  {
    method: 'GET',
    path: `${IN_GROUP}/networkSecurityGroups`,
    resourceType: NSGS,
    handle: (ctx) => listBody(listInGroup<NetworkSecurityGroup>(ctx.store, readGroup(ctx), NSGS).map(renderNetworkSecurityGroup)),
  },
  {
    method: 'GET',
    path: `${IN_SUBSCRIPTION}/networkSecurityGroups`,
    resourceType: NSGS,
    handle: (ctx) => listBody(listInSubscription<NetworkSecurityGroup>(ctx, NSGS).map(renderNetworkSecurityGroup)),
  },
  { method: 'PUT', path: RULE, resourceType: 'networkSecurityGroups/securityRules', body: securityRuleModel, bodyRequired: true, handle: putRule },
  { method: 'GET', path: RULE, resourceType: 'networkSecurityGroups/securityRules', handle: getRule },
  { method: 'DELETE', path: RULE, resourceType: 'networkSecurityGroups/securityRules', handle: deleteRule },
  {
    method: 'GET',
    path: `${NSG}/securityRules`,
    resourceType: 'networkSecurityGroups/securityRules',
    handle: (ctx) => listBody(requireNsg(ctx).properties.securityRules),
  },
  {
    method: 'GET',
    path: `${NSG}/defaultSecurityRules`,
    resourceType: 'networkSecurityGroups/defaultSecurityRules',
    handle: (ctx) =>
      listBody((renderNetworkSecurityGroup(requireNsg(ctx)) as { properties: { defaultSecurityRules: unknown[] } }).properties.defaultSecurityRules),
  },
];
