#!/usr/bin/env node
/**
 * The `vouch` executable under Node (the npm package's `bin` and the single
 * executable application): Node has no `import.meta.main`, so this entry runs
 * the CLI unconditionally. Under Deno, `cli/main.ts` is the entry.
 *
 * @module
 */
import { main } from "./main.ts";

void main();
