// What Calico's components print and how they reach the API from a program: logrus through Calico's formatter
// (libcalico-go/lib/logutils: `<date> <time.ms> [LEVEL][pid] <component>/<file> <line>: <message>`), and the
// agent's in-process client seen as the KubeApi Calico's IPAM library (cni/plugins/calico-ipam-blocks.ts) uses.
import type { KubeApi } from '../../cni/plugins/calico-kube.js';
import type { AgentClient } from '../client/agent-client.js';
import type { ProgramContext } from './program.js';

export const CALICO_VERSION = 'v3.32.1';

/** A logger for one component (`cni-installer`, `startup`, `ipam`); `at` is the source file and line it quotes. */
export function calicoLogger(ctx: Pick<ProgramContext, 'write'>, component: string) {
  const line = (level: string, at: string, msg: string) => {
    const now = new Date().toISOString().replace('T', ' ').replace('Z', '');
    ctx.write('stderr', `${now} [${level}][1] ${component}/${at}: ${msg}\n`);
  };
  return {
    info: (at: string, msg: string) => line('INFO', at, msg),
    warn: (at: string, msg: string) => line('WARNING', at, msg),
    error: (at: string, msg: string) => line('ERROR', at, msg),
  };
}

/** The agent's client as Calico's IPAM library sees the API. */
export function agentKubeApi(api: AgentClient): KubeApi {
  return { request: (method, path, body) => Promise.resolve(api.request(method, path, body)) };
}
