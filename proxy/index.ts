/** Public surface of proxy/: the OpenAI-compatible proxy and tool gateway over a lib/replay session. */
export { startBoundaryProxy } from "./server";
export type { BoundaryProxy, BoundaryProxyOptions, ProxyStop } from "./server";
