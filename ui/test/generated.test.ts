// @vitest-environment node
// The client's `paths` type (src/backend/api.generated.ts) is what openapi-typescript makes of the
// committed OpenAPI document today; a route changed on the Rust side without regenerating fails here.
// Offline and quick: the generator reads only the document, which has no external references.

import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { OUTPUT, generate } from '../scripts/generate-api.mjs';

describe('the generated API client types', () => {
  it('match src/backend/generated/openapi.json', async () => {
    const committed = await readFile(OUTPUT, 'utf8').catch(() => null);
    const fresh = await generate();
    let where = 'it is missing';
    if (committed !== null) {
      const [old, now] = [committed.split('\n'), fresh.split('\n')];
      const line = now.findIndex((l, i) => l !== old[i]);
      where = `first difference at line ${(line === -1 ? now.length : line) + 1}`;
    }
    // Not `toBe` on the texts: a diff of two 130 kB files would bury the message.
    expect(committed === fresh, `ui/src/backend/api.generated.ts is stale (${where}): run \`npm run generate --prefix ui\``).toBe(true);
  });
});
