// How a plugin on a node reaches the cluster's API server: a node's network namespace never connects to the
// host, so aksemu serves each cluster's API on a unix socket in the node's root, <nodeRoot>/run/aksemu/apiserver.sock
// (plain HTTP, the same API and authentication as the HTTPS listener: a bearer token, such as a service-account
// token from a CNI's kubeconfig). The node's path is a symlink to the cluster's one socket (connect() follows
// it); a client connects to it through unix-socket-path.ts, as to every unix socket whose path may be past sun_path.

/** The socket's node path. */
export const NODE_API_SOCKET = '/run/aksemu/apiserver.sock';
