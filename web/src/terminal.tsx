/**
 * @module The browser terminal: xterm.js on the server's terminal WebSocket
 * (`cairn.terminal.v1`; the token offered as the `cairn.bearer.<token>` subprotocol, never in
 * the URL). A dropped socket reconnects to the same shell with `?session=` (the server keeps it
 * for a while and replays its scrollback), with a growing delay.
 */
import type { JSX } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { Terminal } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';
import { refreshTokens, currentTokens } from './session';

type Control = { type: 'session'; id: string; expires_in_seconds: number } | { type: 'exit'; code: number };

function socketUrl(serverId: string, session: string | undefined): string {
  const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
  return `${scheme}://${location.host}/api/v1/servers/${serverId}/terminal${session ? `?session=${session}` : ''}`;
}

function Shell(props: { serverId: string; close: () => void }): JSX.Element {
  const host = useRef<HTMLDivElement>(null);
  const [state, setState] = useState('connecting…');
  useEffect(() => {
    if (!host.current) return undefined;
    const term = new Terminal({ cursorBlink: true, convertEol: false, fontSize: 14, screenReaderMode: true, rows: 20 });
    term.open(host.current);
    term.focus();
    let socket: WebSocket | undefined;
    let session: string | undefined;
    let ended = false;
    let delay = 500;
    const encoder = new TextEncoder();
    const connect = async (): Promise<void> => {
      if (ended) return;
      if (!currentTokens()) await refreshTokens();
      const token = currentTokens()?.access_token ?? '';
      const ws = new WebSocket(socketUrl(props.serverId, session), ['cairn.terminal.v1', `cairn.bearer.${token}`]);
      socket = ws;
      ws.binaryType = 'arraybuffer';
      ws.onopen = () => {
        delay = 500;
        setState('connected');
        ws.send(JSON.stringify({ type: 'resize', cols: term.cols, rows: term.rows }));
      };
      ws.onmessage = (message: MessageEvent<ArrayBuffer | string>) => {
        if (typeof message.data === 'string') {
          const control = JSON.parse(message.data) as Control;
          if (control.type === 'session') session = control.id;
          if (control.type === 'exit') {
            ended = true;
            setState(`the shell ended (exit ${control.code})`);
          }
          return;
        }
        term.write(new Uint8Array(message.data));
      };
      ws.onclose = (event) => {
        if (ended) return;
        if (event.code === 1008 || (!session && event.code !== 1006)) {
          ended = true;
          setState(`closed: ${event.reason || `code ${event.code}`}`);
          return;
        }
        setState(`disconnected; reconnecting in ${Math.round(delay / 1000)} s…`);
        setTimeout(() => void connect(), delay);
        delay = Math.min(delay * 2, 10_000);
      };
    };
    const input = term.onData((data) => {
      if (socket?.readyState === WebSocket.OPEN) socket.send(encoder.encode(data));
    });
    const resize = term.onResize(({ cols, rows }) => {
      if (socket?.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ type: 'resize', cols, rows }));
    });
    void connect();
    return () => {
      ended = true;
      input.dispose();
      resize.dispose();
      socket?.close(1000);
      term.dispose();
    };
  }, [props.serverId]);
  return (
    <div>
      <p role="status" class="muted">Terminal: <span data-testid="terminal-state">{state}</span>{' '}
        <button type="button" class="small secondary" onClick={props.close}>Close terminal</button></p>
      <div class="terminal" ref={host} />
    </div>
  );
}

export function TerminalPane(props: { serverId: string; serverName: string; open?: boolean }): JSX.Element {
  const [open, setOpen] = useState(props.open ?? false);
  if (!open) return <button type="button" onClick={() => setOpen(true)}>Open a terminal on {props.serverName}</button>;
  return <Shell serverId={props.serverId} close={() => setOpen(false)} />;
}
