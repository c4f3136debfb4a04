/*
 * A readable log for a terminal: pino's JSON lines turned into `12:04:31 INFO  message  key=value …`.
 * Small on purpose (no dependency): the JSON log stays the one to collect and search; this is for a person
 * watching `npm start`.
 */

const LEVELS: Record<number, { name: string; color: string }> = {
  10: { name: 'TRACE', color: '90' },
  20: { name: 'DEBUG', color: '90' },
  30: { name: 'INFO ', color: '32' },
  40: { name: 'WARN ', color: '33' },
  50: { name: 'ERROR', color: '31' },
  60: { name: 'FATAL', color: '31' },
};
/** Fields every line has, shown in their own way or not at all. */
const OMITTED = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'v']);

function value(v: unknown): string {
  if (typeof v === 'string') return /^[^\s"=]+$/.test(v) ? v : JSON.stringify(v);
  return JSON.stringify(v) ?? String(v);
}

/** One JSON log line as a person reads it; a line that is not a JSON object is given back as it is. */
export function prettyLine(line: string, options: { colors: boolean }): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line.endsWith('\n') ? line : `${line}\n`;
  }
  if (entry === null || typeof entry !== 'object') return `${line.trimEnd()}\n`;
  const level = LEVELS[entry.level as number] ?? { name: String(entry.level).padEnd(5), color: '0' };
  const time = new Date(typeof entry.time === 'number' ? entry.time : Date.now()).toTimeString().slice(0, 8);
  const paint = (code: string, text: string) => (options.colors ? `\x1b[${code}m${text}\x1b[0m` : text);
  const err = entry.err as { message?: string; stack?: string } | undefined;
  const fields = Object.entries(entry)
    .filter(([key]) => !OMITTED.has(key) && key !== 'err')
    .map(([key, v]) => `${paint('90', `${key}=`)}${value(v)}`);
  const head = `${paint('90', time)} ${paint(level.color, level.name)} ${String(entry.msg ?? '')}`;
  const tail = fields.length > 0 ? `  ${fields.join(' ')}` : '';
  const stack = err ? `\n    ${(err.stack ?? err.message ?? '').split('\n').join('\n    ')}` : '';
  return `${head}${tail}${stack}\n`;
}

/** A pino destination writing readable lines to `out` (stdout by default). */
export function prettyStream(out: NodeJS.WritableStream & { isTTY?: boolean } = process.stdout): {
  write(line: string): void;
} {
  const colors = out.isTTY === true && !process.env.NO_COLOR;
  return { write: (line: string) => void out.write(prettyLine(line, { colors })) };
}
