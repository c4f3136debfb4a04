import { useEffect, useRef, useState } from 'preact/hooks';
import { type AuthState, authState, onAuthChange } from './session.js';

export function useAuth(): AuthState {
  const [state, setState] = useState(authState());
  useEffect(() => onAuthChange(setState), []);
  return state;
}

/**
 * Loads with `load` now and every `intervalMs` (0: once) while the inputs in `deps` stay the same; a
 * failure is kept as `error`, the last good value stays shown. `reload` runs it again at once.
 */
export function usePolled<T>(
  load: (() => Promise<T>) | null,
  intervalMs: number,
  deps: unknown[],
): { value: T | undefined; error: unknown; reload: () => void } {
  const [value, setValue] = useState<T | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  const [tick, setTick] = useState(0);
  const current = useRef(0);
  useEffect(() => {
    setValue(undefined);
    setError(undefined);
  }, deps);
  useEffect(() => {
    if (!load) return;
    const run = ++current.current;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const once = async () => {
      try {
        const next = await load();
        if (run === current.current) {
          setValue(next);
          setError(undefined);
        }
      } catch (e) {
        if (run === current.current) setError(e);
      }
      if (intervalMs > 0 && run === current.current) timer = setTimeout(once, intervalMs);
    };
    void once();
    return () => {
      current.current++;
      if (timer) clearTimeout(timer);
    };
  }, [...deps, tick, load === null]);
  return { value, error, reload: () => setTick((t) => t + 1) };
}
