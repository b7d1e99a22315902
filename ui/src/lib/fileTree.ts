// A project's files as folders: the paths of a linked folder's files (`src/app/main.rs`) made into
// a tree, and the tree cut down to what a filter matches. Pure: the view draws it (files.ts), one
// folder's rows at a time, so thousands of files cost only the rows that are open.

export interface TreeFolder<T> {
  /** Its last part (`app`); empty for the root. */
  name: string;
  /** From the root, with `/` (`src/app`); empty for the root. */
  path: string;
  /** By name, folders before files as shown. */
  folders: TreeFolder<T>[];
  files: TreeLeaf<T>[];
  /** Files in it and below. */
  count: number;
}

export interface TreeLeaf<T> {
  name: string;
  path: string;
  item: T;
}

const byName = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });

/** The tree of `items` by their paths (`pathOf`, `/`-separated; a leading `/` or `./` and empty
 *  parts are ignored), folders and files each sorted by name as a person would (`a2` before `a10`). */
export function buildTree<T>(items: readonly T[], pathOf: (item: T) => string): TreeFolder<T> {
  const root: TreeFolder<T> = { name: '', path: '', folders: [], files: [], count: 0 };
  const folders = new Map<string, TreeFolder<T>>([['', root]]);
  for (const item of items) {
    const parts = pathOf(item).split('/').filter((p) => p && p !== '.');
    const name = parts.pop() ?? '';
    let at = root;
    let path = '';
    for (const part of parts) {
      path = path ? `${path}/${part}` : part;
      let next = folders.get(path);
      if (!next) {
        next = { name: part, path, folders: [], files: [], count: 0 };
        folders.set(path, next);
        at.folders.push(next);
      }
      at = next;
    }
    at.files.push({ name, path: path ? `${path}/${name}` : name, item });
  }
  const finish = (f: TreeFolder<T>): number => {
    f.folders.sort((a, b) => byName.compare(a.name, b.name));
    f.files.sort((a, b) => byName.compare(a.name, b.name));
    f.count = f.files.length + f.folders.reduce((n, sub) => n + finish(sub), 0);
    return f.count;
  };
  finish(root);
  return root;
}

/** The words of a filter, lower-cased: a path matches when it holds every one. */
export function filterWords(query: string): string[] {
  return query.toLowerCase().split(/\s+/).filter(Boolean);
}

/** The tree cut to the files whose path holds every word of `query` (any case); folders left
 *  empty go. An empty query answers the tree itself. */
export function filterTree<T>(tree: TreeFolder<T>, query: string): TreeFolder<T> {
  const words = filterWords(query);
  if (words.length === 0) return tree;
  const cut = (f: TreeFolder<T>): TreeFolder<T> => {
    const files = f.files.filter((leaf) => {
      const path = leaf.path.toLowerCase();
      return words.every((w) => path.includes(w));
    });
    const folders = f.folders.map(cut).filter((sub) => sub.count > 0);
    return { ...f, files, folders, count: files.length + folders.reduce((n, sub) => n + sub.count, 0) };
  };
  return cut(tree);
}

/** The folders to show open: with a filter, every folder of what matched (the view shows a page
 *  of each at a time), else the ones the user opened. */
export function openFolders<T>(tree: TreeFolder<T>, filtering: boolean, opened: ReadonlySet<string>): Set<string> {
  if (!filtering) return new Set(opened);
  const open = new Set<string>();
  const walk = (f: TreeFolder<T>) => {
    for (const sub of f.folders) {
      open.add(sub.path);
      walk(sub);
    }
  };
  walk(tree);
  return open;
}
