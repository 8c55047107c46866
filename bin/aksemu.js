#!/usr/bin/env node
// The compiled CLI lives in dist/; `npm ci` builds it through the `prepare` script.
import { main } from '../dist/src/cli/main.js';

// `aksemu rules | head` closes the pipe early: that is the reader's choice, not an error.
process.stdout.on('error', (err) => {
  if (err.code === 'EPIPE') process.exit(0);
  throw err;
});

process.exitCode = await main(process.argv.slice(2));
