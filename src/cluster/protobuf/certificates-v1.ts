// certificates.k8s.io/v1 (field numbers: k8s.io/api certificates/v1/generated.proto): `kubectl certificate
// approve|deny` update the approval subresource with a typed client.
import type { GroupTables } from './schema.js';

export const CERTIFICATES_V1: GroupTables = {
  apiVersion: 'certificates.k8s.io/v1',
  kinds: ['CertificateSigningRequest'],
  messages: {
    CertificateSigningRequest: { 1: 'metadata ObjectMeta', 2: 'spec CertificateSigningRequestSpec', 3: 'status CertificateSigningRequestStatus' },
    CertificateSigningRequestSpec: {
      1: 'request bytes!',
      2: 'username string',
      3: 'uid string',
      4: 'groups string[]',
      5: 'usages string[]',
      7: 'signerName string!',
      8: 'expirationSeconds int32!',
    },
    CertificateSigningRequestStatus: { 1: 'conditions CertificateSigningRequestCondition[]', 2: 'certificate bytes' },
    CertificateSigningRequestCondition: {
      1: 'type string!',
      2: 'reason string',
      3: 'message string',
      4: 'lastUpdateTime Time',
      5: 'lastTransitionTime Time',
      6: 'status string!',
    },
  },
};
