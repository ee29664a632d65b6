import type http from "node:http";
import type { AddressInfo } from "node:net";

/**
 * Start a test server on 127.0.0.1 (port 0: any free port) and answer with the port it got.
 * @throws the server's listen error (e.g. the port is taken)
 */
export async function listenOnLoopback(server: http.Server, port = 0): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  return (server.address() as AddressInfo).port;
}
