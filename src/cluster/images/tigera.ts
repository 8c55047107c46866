// tigera's images in the CNI agent catalogue (catalogue.ts; program.ts says what an entry holds): the tigera
// operator (quay.io/tigera/operator, `operator`), which turns an Installation into calico-system's workloads
// (tigera-operator.ts). The images it deploys (calico/node, calico/cni, calico/kube-controllers…) are calico's
// entries (calico.ts); those no entry describes run as processes.ts runs unknown programs.
import type { ImageSpec } from './program.js';
import { tigeraOperator } from './tigera-operator.js';

export const TIGERA_IMAGES: ImageSpec[] = [{ image: /(^|\/)tigera\/operator$/, programs: { operator: tigeraOperator } }];
