// Two APIs that fail as a whole rather than per postcode (issue 10): one that goes down for a
// while mid-run and comes back (a proxy in front of the chaos simulator that stops listening, so
// connections are refused, then listens again on the same port), and one that accepts connections
// and never answers. Both are plain TCP: the batch sees what it would see from a real outage.
import net from "node:net";

export interface OutageProxy {
  url: string;
  /** stops listening and drops every connection: new connections are refused */
  down(): Promise<void>;
  /** listens again on the same port */
  up(): Promise<void>;
  readonly isDown: boolean;
  close(): Promise<void>;
}

export async function startOutageProxy(target: string): Promise<OutageProxy> {
  const { hostname, port: targetPort } = new URL(target);
  const sockets = new Set<net.Socket>();
  const track = (s: net.Socket) => {
    sockets.add(s);
    s.once("close", () => sockets.delete(s));
    s.on("error", () => s.destroy());
  };
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(targetPort), hostname);
    track(client);
    track(upstream);
    client.once("close", () => upstream.destroy());
    upstream.once("close", () => client.destroy());
    client.pipe(upstream).pipe(client);
  });
  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => {
        server.off("error", reject);
        resolve((server.address() as net.AddressInfo).port);
      });
    });
  const port = await listen(0);
  let down = false;
  const stop = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      for (const s of sockets) s.destroy();
    });
  return {
    url: `http://127.0.0.1:${port}`,
    get isDown() {
      return down;
    },
    async down() {
      down = true;
      await stop();
    },
    async up() {
      await listen(port);
      down = false;
    },
    close: () => (down ? Promise.resolve() : stop()),
  };
}

export interface SilentServer {
  url: string;
  /** connections accepted so far */
  readonly connections: number;
  close(): Promise<void>;
}

/** Accepts every connection, reads what is sent and never answers. */
export async function startSilentServer(): Promise<SilentServer> {
  const sockets = new Set<net.Socket>();
  let connections = 0;
  const server = net.createServer((s) => {
    connections++;
    sockets.add(s);
    s.once("close", () => sockets.delete(s));
    s.on("error", () => s.destroy());
    s.resume();
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get connections() {
      return connections;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      }),
  };
}
