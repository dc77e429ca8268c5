/**
 * Lookup tables read with outside text as the key (a word of the user's task, an HTML tag or entity a
 * page wrote). A plain object literal inherits Object.prototype, so `table["constructor"]` would be a
 * function and `"__proto__" in table` true; a table made here has no prototype and is frozen, so a key
 * finds only what the table lists.
 */
export function ownTable<T>(entries: Readonly<Record<string, T>>): Readonly<Record<string, T>> {
  return Object.freeze(Object.assign(Object.create(null) as Record<string, T>, entries));
}
