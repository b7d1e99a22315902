// @vitest-environment node
// The client's `paths` type (src/backend/api.generated.ts) is what openapi-typescript makes of the
// committed OpenAPI document today; a route changed on the Rust side without regenerating fails here.
// Offline and quick: the generator reads only the document, which has no external references.

import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { BOUNDS, OUTPUT, TYPES, generate, generateBounds, generateTypes } from '../scripts/generate-api.mjs';

describe('the generated API client types', () => {
  it.each([
    ['api.generated.ts', OUTPUT, generate],
    ['generated/index.ts', TYPES, generateTypes],
    ['generated/setting-bounds.ts', BOUNDS, generateBounds],
  ])('%s matches src/backend/generated/openapi.json', async (_, path, make) => {
    const committed = await readFile(path, 'utf8').catch(() => null);
    const fresh = await make();
    let where = 'it is missing';
    if (committed !== null) {
      const [old, now] = [committed.split('\n'), fresh.split('\n')];
      const line = now.findIndex((l, i) => l !== old[i]);
      where = `first difference at line ${(line === -1 ? now.length : line) + 1}`;
    }
    // Not `toBe` on the texts: a diff of two 130 kB files would bury the message.
    expect(committed === fresh, `ui/src/backend/${_} is stale (${where}): run \`npm run generate --prefix ui\``).toBe(true);
  });
});
