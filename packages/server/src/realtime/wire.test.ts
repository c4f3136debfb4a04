import { describe, expect, it } from 'vitest';
import { ERRORS } from './codes.js';
import { decodeCommands, encodeError, encodeFields, encodeResult, pubPushPrefix } from './wire.js';

describe('decodeCommands', () => {
  it('splits newline-delimited commands, skipping blank lines', () => {
    const frame =
      '{"connect":{"token":"t","name":"js"},"id":1}\n\n{"subscribe":{"channel":"a:b","flag":1},"id":2}\n';
    expect(decodeCommands(frame)).toEqual([
      { method: 'connect', id: 1, req: { token: 't', name: 'js' } },
      { method: 'subscribe', id: 2, req: { channel: 'a:b', flag: 1 } },
    ]);
  });

  it('reads {} as a pong and a send without id as a send', () => {
    expect(decodeCommands('{}')).toEqual([{ method: 'pong', id: 0 }]);
    expect(decodeCommands('{"send":{"data":1}}')).toEqual([{ method: 'send', id: 0, req: { data: 1 } }]);
  });

  it('rejects malformed frames', () => {
    for (const bad of [
      'nope',
      '[]',
      '1',
      '{"id":1}',
      '{"subscribe":{"channel":"x"}}',
      '{"id":-1,"connect":{}}',
      '{"id":1,"connect":3}',
      '{"x":1}',
    ]) {
      expect(decodeCommands(bad), bad).toBeUndefined();
    }
  });
});

describe('encoders', () => {
  it('leave zero values out but keep the result key', () => {
    expect(encodeResult(3, 'unsubscribe', encodeFields({}))).toBe('{"id":3,"unsubscribe":{}}');
    expect(
      encodeFields({
        recoverable: true,
        epoch: 'e',
        offset: 0,
        recovered: false,
        publications: { raw: '[1]' },
      }),
    ).toBe('{"recoverable":true,"epoch":"e","publications":[1]}');
  });

  it('encode errors as Centrifugo does', () => {
    expect(encodeError(7, ERRORS.tokenExpired)).toBe(
      '{"id":7,"error":{"code":109,"message":"token expired"}}',
    );
    expect(encodeError(8, ERRORS.internal)).toBe(
      '{"id":8,"error":{"code":100,"message":"internal server error","temporary":true}}',
    );
  });

  it('escape channel names in pushes', () => {
    expect(`${pubPushPrefix('a"b')}{"data":1}}}`).toBe('{"push":{"channel":"a\\"b","pub":{"data":1}}}');
  });
});
