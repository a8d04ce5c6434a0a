/**
 * @module An app's stable endpoint: a TCP proxy on 127.0.0.1 owned by cairn that sends each new
 * connection to the release serving now. Switching releases changes where new connections go;
 * connections already open finish on the release they started on, so a deploy drops nothing.
 */
import { createConnection, createServer, type Server, type Socket } from 'node:net';

export class StableEndpoint {
  private target: number | null = null;
  private readonly server: Server;
  private readonly open = new Set<Socket>();

  private constructor(server: Server, readonly port: number) {
    this.server = server;
    server.on('connection', (client) => this.forward(client));
  }

  /** Listens on `port` (0 for any free one; a port taken since falls back to a free one). */
  static async listen(port: number): Promise<StableEndpoint> {
    const bind = (p: number): Promise<Server> =>
      new Promise((resolve, reject) => {
        const server = createServer();
        server.once('error', reject);
        server.listen(p, '127.0.0.1', () => resolve(server));
      });
    let server: Server;
    try {
      server = await bind(port);
    } catch (error) {
      if (port === 0 || (error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
      server = await bind(0);
    }
    const address = server.address();
    return new StableEndpoint(server, typeof address === 'object' && address !== null ? address.port : 0);
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Sends new connections to `port`; null refuses them (the app is stopped). */
  switchTo(port: number | null): void {
    this.target = port;
  }

  private forward(client: Socket): void {
    const target = this.target;
    if (target === null) {
      client.destroy();
      return;
    }
    this.open.add(client);
    const upstream = createConnection({ host: '127.0.0.1', port: target });
    const end = (): void => {
      client.destroy();
      upstream.destroy();
      this.open.delete(client);
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    client.pipe(upstream);
    upstream.pipe(client);
  }

  close(): Promise<void> {
    for (const socket of this.open) socket.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
