// Loaded with `node --import` in front of the MCP conformance CLI (test/transports/mcp-conformance.test.ts).
// @modelcontextprotocol/conformance 0.2 imports `globSync` from fs, which Node 22 added; on Node 20 that import
// alone stops the CLI before it runs anything. The CLI uses it only for its tier-check command, never for server
// scenarios, so on Node 20 a hook gives it an fs module with a globSync that refuses.
import * as fs from 'node:fs';
import { register } from 'node:module';

if (!('globSync' in fs)) register('./node20-hooks.mjs', import.meta.url);
