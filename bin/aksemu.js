#!/usr/bin/env node
// The compiled CLI lives in dist/; `npm ci` builds it through the `prepare` script.
import { main } from '../dist/src/cli/main.js';

process.exitCode = await main(process.argv.slice(2));
