import { describe, expect, it } from 'vitest';
import { bearerFromSubprotocols, ControlMessageError, offeredSubprotocols, parseClientControl } from './terminal-protocol.js';

describe('terminal control messages', () => {
  it('reads a resize within bounds', () => {
    expect(parseClientControl('{"type":"resize","cols":120,"rows":40}')).toEqual({ type: 'resize', cols: 120, rows: 40 });
    expect(parseClientControl('{"type":"resize","cols":1000,"rows":1}')).toEqual({ type: 'resize', cols: 1000, rows: 1 });
  });

  it('refuses what it does not understand, saying which field and why', () => {
    const cases: Array<[string, RegExp]> = [
      ['not json', /JSON control message/],
      ['[1]', /JSON object/],
      ['{"type":"paste"}', /unknown control message type "paste"/],
      ['{"type":"resize","cols":0,"rows":10}', /cols must be an integer from 1 to 1000/],
      ['{"type":"resize","cols":80,"rows":1001}', /rows must be an integer from 1 to 1000/],
      ['{"type":"resize","cols":80.5,"rows":24}', /cols/],
      ['{"type":"resize","cols":80,"rows":24,"x":1}', /unknown field x/],
    ];
    for (const [text, reason] of cases) {
      expect(() => parseClientControl(text), text).toThrow(ControlMessageError);
      expect(() => parseClientControl(text), text).toThrow(reason);
    }
  });
});

describe('terminal subprotocols', () => {
  it('finds the bearer token among the offered subprotocols', () => {
    const offered = offeredSubprotocols('cairn.terminal.v1, cairn.bearer.abc.def-ghi');
    expect(offered).toEqual(['cairn.terminal.v1', 'cairn.bearer.abc.def-ghi']);
    expect(bearerFromSubprotocols(offered)).toBe('abc.def-ghi');
    expect(bearerFromSubprotocols(offeredSubprotocols(undefined))).toBeUndefined();
    expect(bearerFromSubprotocols(['cairn.bearer.'])).toBeUndefined();
  });
});
