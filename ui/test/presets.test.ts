import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { setLanguage } from '../src/lib/i18n';
import { BUILTIN_PRESETS, presetDescription, presetName, presetSourceText } from '../src/lib/presets';

const PRESETS_DIR = path.resolve(__dirname, '../../prompts/presets');

describe('built-in presets in the UI’s language', () => {
  afterEach(() => setLanguage('en'));

  it('every built-in preset (prompts/presets/*.md) has a Korean name and description', () => {
    const keys = fs.readdirSync(PRESETS_DIR).filter((f) => f.endsWith('.md')).map((f) => f.slice(0, -3));
    expect(keys.length).toBeGreaterThan(0);
    const missing = keys.filter((k) => !BUILTIN_PRESETS[k]?.ko.name || !BUILTIN_PRESETS[k]?.ko.description);
    expect(missing, 'these would show their English name in a Korean window; add them to ui/src/lib/presets.ts').toEqual([]);
  });

  it('names a built-in one by its key, and leaves the user’s own as typed', () => {
    setLanguage('ko');
    const builtin = { key: 'code-reviewer', name: 'Code reviewer', description: 'Reviews code.', builtin: true };
    expect(presetName(builtin)).toBe('코드 리뷰어');
    expect(presetDescription(builtin)).toMatch(/[가-힣]/);
    const mine = { key: 'user:3', name: 'Code reviewer', description: 'mine', builtin: false };
    expect(presetName(mine), 'a user preset keeps its typed name even when it matches a built-in one').toBe('Code reviewer');
    expect(presetSourceText('preset: Code reviewer', [builtin], '프리셋')).toBe('프리셋: 코드 리뷰어');
    setLanguage('en');
    expect(presetName(builtin)).toBe('Code reviewer');
  });
});
