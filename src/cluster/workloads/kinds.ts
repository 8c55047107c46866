// The resource types the controllers read and write (one lookup each, from the served-resource table).
import { findResource, type ResourceType } from '../resources.js';

function served(group: string, resource: string): ResourceType {
  const r = findResource(group, 'v1', resource);
  if (!r) throw new Error(`resource ${group}/${resource} is not served`);
  return r;
}

export const PODS = served('', 'pods');
export const NODES_R = served('', 'nodes');
export const EVENTS = served('', 'events');
export const SERVICES_R = served('', 'services');
export const ENDPOINTS = served('', 'endpoints');
export const DEPLOYMENTS = served('apps', 'deployments');
export const REPLICASETS = served('apps', 'replicasets');
export const DAEMONSETS = served('apps', 'daemonsets');
export const NAMESPACES_R = served('', 'namespaces');
