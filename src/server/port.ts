// The port `aksemu start` listens on when none is given: its own module, so the CLI reads it without loading the server.
export const DEFAULT_PORT = 8443;
