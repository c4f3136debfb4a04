/** Code-unit order of two strings, as `sort` wants it: the order every canonical listing of the engine uses. */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
