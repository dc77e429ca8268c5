/**
 * Sorting the short lists of table and column names the EHRAgent extractor builds (a few names each,
 * several lists per check). Array.prototype.sort allocates its own work state on every call, which was
 * the largest share of the memory a check allocated; a short list is sorted here by insertion instead,
 * into the same order sort() gives strings (by UTF-16 code units, as `<` compares them).
 */

/** Longer lists go to Array.prototype.sort, whose cost no longer matters beside theirs. */
const INSERTION_LIMIT = 16;

/** Sorts `list` in place, as `list.sort()` does for strings, and returns it. */
export function sortStrings(list: string[]): string[] {
  if (list.length > INSERTION_LIMIT) return list.sort();
  for (let i = 1; i < list.length; i++) {
    const item = list[i]!;
    let j = i - 1;
    while (j >= 0 && list[j]! > item) {
      list[j + 1] = list[j]!;
      j--;
    }
    list[j + 1] = item;
  }
  return list;
}

/** The names of a list or set, sorted as `[...names].sort()` sorts them, in a new array. */
export function sortedStrings(names: Iterable<string>): string[] {
  return sortStrings([...names]);
}

/** `[...names].sort().join(",")`, without the copy for the usual single name. */
export function sortedJoin(names: readonly string[]): string {
  return names.length === 1 ? names[0]! : sortStrings([...names]).join(",");
}
