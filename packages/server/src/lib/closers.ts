/**
 * What a thing opened in parts must close: a closer added as each part opens, all of them run by
 * `closeAll` in the reverse order, each once; one that fails does not keep the others from running.
 */
export function closerStack() {
  const closers: (() => unknown)[] = [];
  return {
    push(close: () => unknown): void {
      closers.push(close);
    },
    async closeAll(): Promise<void> {
      for (const close of closers.splice(0).reverse()) await Promise.resolve(close()).catch(() => {});
    },
  };
}
