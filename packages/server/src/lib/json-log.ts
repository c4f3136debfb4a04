/** A cluster role's log: JSON lines on stdout. */
export type JsonLog = {
  info(o: object, msg: string): void;
  error(o: object, msg: string): void;
};

/** One JSON object a line, as the HTTP nodes log (pino's shape: level, time, msg). */
export function jsonLog(): JsonLog {
  const line = (level: number, o: object, msg: string) => {
    const fields = Object.fromEntries(
      Object.entries(o).map(([k, v]) => [k, v instanceof Error ? { message: v.message, stack: v.stack } : v]),
    );
    console.log(JSON.stringify({ level, time: Date.now(), pid: process.pid, ...fields, msg }));
  };
  return {
    info: (o: object, msg: string) => line(30, o, msg),
    error: (o: object, msg: string) => line(50, o, msg),
  };
}
