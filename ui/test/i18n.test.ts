// The UI's words, one file per area (src/lib/i18n/): each says everything in both languages. A key
// only in English shows English in the Korean UI; one only in Korean is never shown; a placeholder
// the Korean drops shows the user a sentence without its name or number; a key in two areas is
// silently one of them once merged.

import { describe, expect, it } from 'vitest';
import { AREAS, dicts } from '../src/lib/i18n';

type Area = { en: Readonly<Record<string, string>>; ko: Readonly<Record<string, string>> };

/** What one area's two languages disagree on, each as a sentence naming the key. */
export function gaps(name: string, area: Area): string[] {
  const out: string[] = [];
  for (const key of Object.keys(area.en)) if (!(key in area.ko)) out.push(`${name}.${key}: no Korean`);
  for (const key of Object.keys(area.ko)) if (!(key in area.en)) out.push(`${name}.${key}: Korean only`);
  for (const [key, english] of Object.entries(area.en)) {
    const korean = area.ko[key];
    if (korean === undefined) continue;
    for (const slot of placeholders(english)) if (!placeholders(korean).has(slot)) out.push(`${name}.${key}: the Korean lacks {${slot}}`);
  }
  return out;
}

/** The names a text is filled with: `{name}`, and the number of a plural (`{n, plural, …}`). */
function placeholders(text: string): Set<string> {
  return new Set([...text.matchAll(/\{(\w+)(?:\}|, plural,)/g)].map((m) => m[1]));
}

/** Keys defined in more than one area. */
export function shared(areas: Record<string, Area>): string[] {
  const seen = new Map<string, string>();
  const out: string[] = [];
  for (const [name, area] of Object.entries(areas)) {
    for (const key of Object.keys(area.en)) {
      const first = seen.get(key);
      if (first) out.push(`${key}: in ${first} and ${name}`);
      else seen.set(key, name);
    }
  }
  return out;
}

describe('the UI words', () => {
  it('are read from every area', () => {
    expect(Object.keys(AREAS).length, 'the areas are merged').toBeGreaterThan(5);
    expect(Object.keys(dicts.en).length, 'the merged English has every area\'s keys')
      .toBe(Object.values(AREAS).reduce((n, a) => n + Object.keys(a.en).length, 0));
  });

  it('say everything in English and Korean, with the same placeholders', () => {
    const all = Object.entries(AREAS).flatMap(([name, area]) => gaps(name, area));
    expect(all, 'each key in both languages, every {placeholder} of the English in the Korean').toEqual([]);
  });

  it('define each key in one area only', () => {
    expect(shared(AREAS), 'a key in two areas: the merge keeps one, the other never shows').toEqual([]);
  });

  it('would see a gap (the checks can fail)', () => {
    const area = {
      en: { a: 'Deleted {name}', b: '{n, plural, one {# chat} other {# chats}}', c: 'Only English' },
      ko: { a: '삭제했습니다', b: '대화 {n}개', d: '한국어만' },
    };
    expect(gaps('x', area)).toEqual(['x.c: no Korean', 'x.d: Korean only', 'x.a: the Korean lacks {name}']);
    expect(shared({ one: { en: { a: '' }, ko: {} }, two: { en: { a: '' }, ko: {} } })).toEqual(['a: in one and two']);
  });
});
