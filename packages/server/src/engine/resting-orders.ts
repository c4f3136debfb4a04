/** Resting orders on and off the book and every index. */
import type { EngineState } from './engine-state.js';
import { F, NIL } from './order-store.js';

/** Handles of every resting order, oldest placement first (pushed one by one: a market may hold millions). */
export function restingInPlacementOrder(s: EngineState): number[] {
  const store = s.store;
  const handles: number[] = [];
  for (const m of s.markets) {
    for (let level = 0; level < m.head.length; level++) {
      for (let h = m.head[level]!; h !== NIL; h = store.i32[(h << 4) + F.LEVEL_NEXT]!) handles.push(h);
    }
  }
  return handles.sort((x, y) => store.placed[x]! - store.placed[y]!);
}
