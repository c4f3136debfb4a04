import type { Msg, NatsConnection, Subscription } from '@nats-io/transport-node';

export type RequestServerOptions<R extends { id: string }> = {
  nc: NatsConnection;
  subject: string;
  /** One queue group: were two leaders ever subscribed at once, each request still goes to one. */
  queue: string;
  /** How many answered requests are remembered by id, for retries that reach the same node. */
  remember: number;
  /** The request, or a throw for one that cannot be read. */
  decode: (data: Uint8Array) => R;
  /** The reply to a request that cannot be read. */
  refuse: (error: unknown) => string;
  /** The encoded reply; never rejects. */
  answer: (request: R) => Promise<string>;
};

/**
 * A leader's request/reply service over NATS (the sequencer intake, the leader services): serves `subject`
 * in a queue group while started; a retry of a request under way or answered here (same request id) gets
 * the same reply instead of being run again.
 */
export class RequestServer<R extends { id: string }> {
  #subscription: Subscription | null = null;
  readonly #replies = new Map<string, Promise<string>>();

  constructor(private readonly o: RequestServerOptions<R>) {}

  get serving(): boolean {
    return this.#subscription !== null;
  }

  /** Starts answering; resolves once the server has the subscription (requests from then on reach it). */
  async start(): Promise<void> {
    if (this.#subscription) return;
    this.#subscription = this.o.nc.subscribe(this.o.subject, {
      queue: this.o.queue,
      callback: (error, msg) => {
        if (!error) this.#serve(msg);
      },
    });
    await this.o.nc.flush();
  }

  /** Stops taking requests; those taken are still answered (the subscription drains). */
  async stop(): Promise<void> {
    const subscription = this.#subscription;
    this.#subscription = null;
    if (subscription && !subscription.isClosed()) await subscription.drain();
  }

  #serve(msg: Msg): void {
    let request: R;
    try {
      request = this.o.decode(msg.data);
    } catch (error) {
      msg.respond(this.o.refuse(error));
      return;
    }
    let reply = this.#replies.get(request.id);
    if (!reply) {
      reply = this.o.answer(request);
      this.#replies.set(request.id, reply);
      if (this.#replies.size > this.o.remember) this.#replies.delete(this.#replies.keys().next().value!);
    }
    reply.then((data) => {
      // A requester gone meanwhile (it timed out and retries) drops the reply: nothing to do.
      if (!this.o.nc.isClosed()) msg.respond(data);
    });
  }
}
