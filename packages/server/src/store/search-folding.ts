/**
 * Folding for search, done in JS so that non-ASCII names fold too (SQLite's lower() is ASCII only), the same
 * for every store: case and accents are ignored, so "atletico" finds "Atlético Madrid".
 */
export const foldForSearch = (text: string): string =>
  text.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();
