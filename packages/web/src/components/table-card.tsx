import type { ComponentChildren } from 'preact';
import { TableBox } from './row-name.js';

/**
 * A table that stacks its cells on a phone, under its column heads; with `empty`, a muted row says so
 * when there are no rows.
 */
export function StackTable(props: {
  columns: string[];
  rows: number;
  empty?: string;
  children: ComponentChildren;
}) {
  return (
    <TableBox>
      <table class="stack">
        <thead>
          <tr>
            {props.columns.map((c) => (
              <th key={c}>{c}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {props.children}
          {props.rows === 0 && props.empty !== undefined && (
            <tr>
              <td colSpan={props.columns.length} class="muted">
                {props.empty}
              </td>
            </tr>
          )}
        </tbody>
      </table>
    </TableBox>
  );
}

/** A card that folds away under its heading, open at first. */
export function TableCard(props: {
  title: ComponentChildren;
  testId: string;
  heading?: 'h2' | 'h3';
  children: ComponentChildren;
}) {
  const Heading = props.heading ?? 'h3';
  return (
    <details class="card" data-testid={props.testId} open>
      <summary>
        <Heading>{props.title}</Heading>
      </summary>
      {props.children}
    </details>
  );
}
