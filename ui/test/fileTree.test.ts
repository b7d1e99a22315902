// A project's files as a folder tree: built from the paths of a linked folder's files, cut down by
// a filter, and drawn one open folder at a time, so a folder of 2,000 files opens as fast as a
// handful and each file is named once, by its place.

import { beforeEach, describe, expect, it } from 'vitest';
import type { Attachment, FolderSync, Project } from '../src/backend/types';
import { buildTree, filterTree } from '../src/lib/fileTree';
import { setLanguage } from '../src/lib/i18n';
import { mountFileTree, TREE_PAGE } from '../src/views/fileTree';
import { appInProject } from './fakeBackend';

const paths = (f: ReturnType<typeof buildTree<string>>): string[] => [
  ...f.folders.flatMap((sub) => [`${sub.path}/`, ...paths(sub)]),
  ...f.files.map((leaf) => leaf.path),
];

describe('the tree of paths', () => {
  it('puts files under their folders, folders first, in the order a person sorts names', () => {
    const tree = buildTree(['src/b.rs', 'README.md', 'src/app/a10.rs', 'src/app/a2.rs', './docs//guide.md', 'src/a.rs'], (p) => p);
    expect(paths(tree), 'a2 before a10, folders before files at each level').toEqual([
      'docs/', 'docs/guide.md', 'src/', 'src/app/', 'src/app/a2.rs', 'src/app/a10.rs', 'src/a.rs', 'src/b.rs', 'README.md',
    ]);
    expect(tree.count, 'every file is counted once').toBe(6);
    expect(tree.folders.find((f) => f.name === 'src')?.count, 'a folder counts the files below it').toBe(4);
  });

  it('a filter keeps the files whose path holds every word, in any case, and drops emptied folders', () => {
    const tree = buildTree(['src/app/Main.rs', 'src/app/util.rs', 'docs/main.md', 'tests/app_main.rs'], (p) => p);
    expect(paths(filterTree(tree, 'MAIN')), 'one word: the name or the folder may hold it').toEqual([
      'docs/', 'docs/main.md', 'src/', 'src/app/', 'src/app/Main.rs', 'tests/', 'tests/app_main.rs',
    ]);
    expect(paths(filterTree(tree, 'app main')), 'several words: all must be in the path').toEqual(['src/', 'src/app/', 'src/app/Main.rs', 'tests/', 'tests/app_main.rs']);
    expect(filterTree(tree, 'nothing-like-this').count, 'nothing matched: nothing shown').toBe(0);
    expect(filterTree(tree, '   '), 'spaces are no filter').toBe(tree);
  });
});

function file(id: number, path: string): Attachment {
  return {
    id, session_id: null, project_id: 2, name: path.split('/').pop()!, kind: 'text', mime: 'text/plain', size: 100, pages: null, sha256: 'x',
    status: 'ready', note: null, note_reason: null, created_at: 0, folder_path: path,
  };
}

const PROJECT: Project = { id: 2, name: 'Site', instructions: '', is_default: false, folder: '/home/me/site', exclude: [], tool_approval: 'ask', session_count: 0, created_at: 0, updated_at: 0 };

const SYNC: FolderSync = { running: false, done: true, error: null, found: 0, read: 0, failed: [], skipped: [] };

describe('the tree in the project’s files', () => {
  beforeEach(() => {
    setLanguage('en');
    document.body.replaceChildren();
  });

  it('draws only open folders, a page at a time, with 2,000 files', () => {
    const { app } = appInProject({}, PROJECT);
    // 20 folders of 99 files each, and 20 more at the top level of one folder: 2,000 in all.
    const files = Array.from({ length: 1980 }, (_, i) => file(i + 1, `pkg${i % 20}/src/f${i}.ts`));
    files.push(...Array.from({ length: 20 }, (_, i) => file(5000 + i, `pkg0/f-top-${i}.ts`)));
    const tree = mountFileTree(app);
    document.body.append(tree.el);
    const started = performance.now();
    tree.render(files, SYNC);
    const took = performance.now() - started;
    const rows = () => tree.el.querySelectorAll('[data-testid=file]').length;
    expect(rows(), 'closed folders draw no file rows').toBe(0);
    expect(tree.el.querySelectorAll('[data-testid=tree-folder]').length, 'the 20 top folders are rows').toBe(20);
    // Generous: the suite runs its files side by side on a busy machine; what keeps it fast is
    // the count of rows above, the time only catches a tree drawn whole.
    expect(took, `drawing 2,000 files' tree took ${took.toFixed(0)} ms`).toBeLessThan(1500);
    expect(tree.el.querySelector('[data-testid=tree-summary]')?.textContent, 'the total is said').toBe('2,000 files');

    tree.el.querySelector<HTMLButtonElement>('[data-testid=tree-folder][data-path=pkg0] > button')!.click();
    expect(rows(), 'opening pkg0 shows its own 20 files; its src folder stays closed').toBe(20);

    const filter = tree.el.querySelector<HTMLInputElement>('[data-testid=tree-filter]')!;
    filter.value = '.ts';
    filter.dispatchEvent(new Event('input'));
    expect(rows(), 'a filter opens what matched, but draws a page of each folder at most').toBeLessThanOrEqual(20 * TREE_PAGE + 20);
    expect(tree.el.querySelector('[data-testid=tree-summary]')?.textContent, 'and says how many matched').toBe('2,000 of 2,000 files match');

    filter.value = 'pkg3 f1803';
    filter.dispatchEvent(new Event('input'));
    expect([...tree.el.querySelectorAll('[data-testid=file-name]')].map((e) => e.textContent), 'two words find the one file').toEqual(['f1803.ts']);
  });

  it('pages a folder of many files: “Show more” draws the next page', () => {
    const { app } = appInProject({}, PROJECT);
    const tree = mountFileTree(app);
    document.body.append(tree.el);
    tree.render(Array.from({ length: 450 }, (_, i) => file(i + 1, `big/f${i}.txt`)), SYNC);
    tree.el.querySelector<HTMLButtonElement>('[data-testid=tree-folder] > button')!.click();
    const rows = () => tree.el.querySelectorAll('[data-testid=file]').length;
    expect(rows(), 'the first page').toBe(TREE_PAGE);
    const more = tree.el.querySelector<HTMLButtonElement>('[data-testid=tree-more]')!;
    expect(more.textContent, 'the button says what it shows').toBe('Show 200 more (250 not shown)');
    more.click();
    expect(rows(), 'the next page').toBe(2 * TREE_PAGE);
  });

  it('shows what the sync left out in its place, grey with why, apart from what failed', () => {
    const { app } = appInProject({}, PROJECT);
    const tree = mountFileTree(app);
    document.body.append(tree.el);
    tree.render([file(1, 'notes/a.md')], { ...SYNC, skipped: [{ path: 'notes/empty.md', reason: 'empty' }], failed: [{ path: 'notes/broken.pdf', reason: 'bad xref table' }] });
    tree.el.querySelector<HTMLButtonElement>('[data-testid=tree-folder] > button')!.click();
    const skipped = tree.el.querySelector<HTMLElement>('[data-testid=tree-skipped]')!;
    expect(skipped.textContent, 'an empty file is skipped, with why').toContain('skipped: empty');
    expect(skipped.classList.contains('tree-failed'), 'skipped is not failed').toBe(false);
    expect(tree.el.querySelector('[data-testid=tree-failed]')?.textContent, 'a failure says so, with the reader’s words').toContain('failed: bad xref table');
    setLanguage('ko');
    tree.render([file(1, 'notes/a.md')], { ...SYNC, skipped: [{ path: 'notes/empty.md', reason: 'empty' }] });
    expect(tree.el.querySelector('[data-testid=tree-skipped]')?.textContent, 'in Korean too').toContain('건너뜀: 빈 파일');
  });
});
