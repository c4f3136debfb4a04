import type { ComponentChildren } from 'preact';

export function Section(props: { title: string; testId?: string; children: ComponentChildren }) {
  return (
    <section class="card" data-testid={props.testId}>
      <h2>{props.title}</h2>
      {props.children}
    </section>
  );
}

export function ErrorLine(props: { error: unknown; text?: (e: unknown) => string }) {
  if (props.error === undefined || props.error === null || props.error === '') return null;
  return (
    <p class="error" role="alert">
      {props.text ? props.text(props.error) : String(props.error)}
    </p>
  );
}
